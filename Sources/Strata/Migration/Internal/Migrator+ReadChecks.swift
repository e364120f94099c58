/// Refusing a step whose fields' new Swift types cannot read the values they keep.
extension Migrator {
    /// Reads every stored value of the fields whose Swift type the step changes without a conversion of
    /// its own (``MigrationPlan/ReadCheck``) with the new type, once the step has run (its custom changes
    /// included, which may rewrite them): a value it cannot read refuses the migration, which would
    /// otherwise commit and make every later fetch of the entity fail with `typeMismatch`.
    func checkReads(_ plan: MigrationPlan) throws(StrataError) {
        for table in plan.tables where table.action != .transform {
            guard let entity = table.destination?.name else { continue }
            for check in table.readChecks {
                try checkReads(check, entity: entity, table: entity, column: check.column)
            }
        }
    }

    /// For a forecast: the same checks of the first step, on the source columns the values come from
    /// unconverted, unless the step has custom changes (which may rewrite them). Later steps' values
    /// are not known before the earlier steps run.
    func forecastReads(_ plan: MigrationPlan) throws(StrataError) {
        guard plan.customs.isEmpty else { return }
        for table in plan.tables where table.action != .transform {
            guard let entity = table.destination?.name, let source = table.source?.name else { continue }
            for check in table.readChecks {
                guard case .column(let column, let convert, _, _)? = table.columns.first(where: { $0.column == check.column })?.source,
                    convert == nil
                else { continue }
                try checkReads(check, entity: entity, table: source, column: column)
            }
        }
    }

    private func checkReads(_ check: MigrationPlan.ReadCheck, entity: String, table: String, column name: String) throws(StrataError) {
        let column = dialect.quote(name)
        let statement = try connection.makeStatement(
            "SELECT \"id\", \(column) FROM \(dialect.quote(table)) WHERE \(column) IS NOT NULL ORDER BY \"id\"")
        var unreadable = 0
        var example: (id: Int64, value: DatabaseValue)?
        while try statement.step() {
            let value = statement.value(at: 1)
            guard !check.reads(value) else { continue }
            unreadable += 1
            if example == nil, case .integer(let id) = statement.value(at: 0) { example = (id, value) }
        }
        statement.reset()
        guard unreadable > 0, let example else { return }
        let oldType = Self.shortTypeName(check.oldType), newType = Self.shortTypeName(check.newType)
        func message(_ shown: String) -> String {
            "\(entity).\(check.property) changes its Swift type from \(oldType) to \(newType) and keeps its stored "
                + "values, but \(unreadable) object(s) hold a value \(newType) cannot read (object \(example.id): \(shown)). "
                + "Convert the values in a .transform(\(entity).self) { old, new in ... } of the step, or delete "
                + "those objects with .deleteObjects; the store was not changed."
        }
        throw StrataError(.invalidMigration, message("\(example.value)"), entity: entity, field: check.property)
            .hidingValues(message(example.value.kindDescription))
    }

    /// A type's name without its module: `PredicateMood` for `MyApp.PredicateMood`.
    static func shortTypeName(_ name: String) -> String {
        guard let dot = name.firstIndex(of: "."), !name.contains("<") else { return name }
        return String(name[name.index(after: dot)...])
    }
}
