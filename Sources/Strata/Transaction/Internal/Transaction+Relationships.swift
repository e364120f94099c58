/// Keeping relationships stored and their changes tracked: linking and unlinking to-many members,
/// following to-one changes, and applying delete rules.
extension Transaction {
    private var graph: SchemaGraph { store.graph }
    private var builder: QueryBuilder { store.builder }

    // MARK: Change tracking

    /// Records that the members of to-many relationship `index` of object `id` changed, with the
    /// derived fields computed over it.
    func recordMembershipChange(_ entity: String, _ id: Int64, toMany index: Int) {
        guard let description = graph.entities[entity], index < description.toMany.count else { return }
        let fields = Set([description.toMany[index].property] + graph.derivedProperties(entity, toMany: index))
        recordUpdate(entity: entity, id: id, fields: fields)
    }

    /// Records updates of the derived fields that an edit of object `id` changes: sums, minimums and
    /// maximums computed over an attribute that changed, on every object that relates to it.
    func recordDerivedDependents(_ entity: String, _ id: Int64, changed properties: Set<String>) throws(StrataError) {
        guard graph.derivedSources.contains(entity) else { return }
        for (parentName, relationships) in graph.toMany {
            for relationship in relationships where relationship.target == entity {
                let derived = (graph.entities[parentName]?.derived ?? []).filter {
                    $0.relationship == relationship.property && $0.attribute.map(properties.contains) == true
                }
                guard !derived.isEmpty else { continue }
                let parents: [Int64]
                switch relationship.storage {
                case .foreignKey(let column, _):
                    parents = try integers(builder.selectColumn(column, table: entity), [.integer(id)])
                case .joinTable(let table, let own, let other, _):
                    parents = try integers(builder.joinOwners(table: table, own: own, other: other), [.integer(id)])
                }
                for parent in parents {
                    recordUpdate(entity: parentName, id: parent, fields: Set(derived.map(\.property)))
                }
            }
        }
    }

    // MARK: Reading

    private func integers(_ sql: String, _ values: [DatabaseValue]) throws(StrataError) -> [Int64] {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var result: [Int64] = []
        while try statement.step() {
            if case .integer(let value) = statement.value(at: 0) { result.append(value) }
        }
        return result
    }

    private func run(_ sql: String, _ values: [DatabaseValue]) throws(StrataError) {
        try connection.execute(sql, values)
    }

    /// The IDs related to object `id` through a to-many relationship, in order.
    func relatedIDs(_ relationship: SchemaGraph.ToMany, of id: Int64) throws(StrataError) -> [Int64] {
        try integers(builder.relatedIDs(relationship), [.integer(id)])
    }

    private func foreignKey(_ toOne: SchemaGraph.ToOne, of id: Int64) throws(StrataError) -> Int64? {
        try integers(builder.selectColumn(toOne.column, table: toOne.source), [.integer(id)]).first
    }

    private func notFound(_ entity: String, _ id: Int64, from source: String, _ property: String) -> StrataError {
        StrataError(
            .notFound, "\(source).\(property) refers to \(entity)(\(id)), which does not exist (any more).",
            entity: source, field: property)
    }

    // MARK: To-many

    /// Checks a to-many relationship's new members before anything is written, so that a refused
    /// change leaves nothing behind (a caller that catches the error and goes on finds the row as it
    /// was): an ordered relationship lists each member once, and every added member exists.
    func checkToMany(_ relationship: SchemaGraph.ToMany, from old: [Int64], to new: [Int64]) throws(StrataError) {
        guard old != new else { return }
        if relationship.isOrdered {
            var seen = Set<Int64>()
            if let repeated = new.first(where: { !seen.insert($0).inserted }) {
                throw StrataError(
                    .invalidEdit,
                    "\(relationship.source).\(relationship.property) lists \(relationship.target)(\(repeated)) more than once; "
                        + "an ordered to-many relationship holds each object once, at one position. Remove the repeats.",
                    entity: relationship.source, field: relationship.property)
            }
        }
        let oldMembers = Set(old)
        for member in new where !oldMembers.contains(member) {
            guard try !integers(builder.exists(table: relationship.target), [.integer(member)]).isEmpty else {
                throw notFound(relationship.target, member, from: relationship.source, relationship.property)
            }
        }
    }

    /// Makes the stored members of a to-many relationship of object `id` go from `old` to `new`, which
    /// ``checkToMany(_:from:to:)`` has checked (or which adds no member).
    func applyToMany(_ relationship: SchemaGraph.ToMany, of id: Int64, from old: [Int64], to new: [Int64]) throws(StrataError) {
        guard old != new else { return }
        let oldMembers = Set(old)
        let removed = oldMembers.subtracting(new)
        let added = new.filter { !oldMembers.contains($0) }
        switch relationship.storage {
        case .foreignKey(let column, let position):
            let property = graph.entities[relationship.target]?.fields.first { $0.column == column }?.property ?? column
            for member in removed {
                try run(builder.setForeignKey(table: relationship.target, column: column, position: position, onlyIfOwner: true),
                        [.integer(member), .integer(id)])
                if connection.changes > 0 {
                    recordUpdate(entity: relationship.target, id: member, fields: [property])
                }
            }
            for member in added {
                let toOne = graph.toOne[relationship.target]?.first { $0.column == column }
                let previous = try toOne.flatMap { toOne throws(StrataError) in try foreignKey(toOne, of: member) }
                try run(builder.setForeignKey(table: relationship.target, column: column, position: nil, onlyIfOwner: false),
                        [.integer(id), .integer(member)])
                guard connection.changes > 0 else {
                    throw notFound(relationship.target, member, from: relationship.source, relationship.property)
                }
                recordUpdate(entity: relationship.target, id: member, fields: [property])
                if let previous, previous != id {
                    recordMembershipChange(relationship.source, previous, toMany: relationship.index)
                }
            }
            if let position, relationship.isOrdered {
                let renumbered = try renumbering(from: old, to: new) { member throws(StrataError) in
                    try integers(builder.selectColumn(position, table: relationship.target), [.integer(member)]).first
                }
                for offset in renumbered.offsets {
                    try run(builder.setPosition(table: relationship.target, column: position),
                            [.integer(renumbered.base + Int64(offset)), .integer(new[offset])])
                }
            }
        case .joinTable(let table, let own, let other, let position):
            for member in removed {
                try run(builder.deleteJoinRow(table: table, own: own, other: other), [.integer(id), .integer(member)])
                if let inverse = relationship.inverseToMany {
                    recordMembershipChange(relationship.target, member, toMany: inverse)
                }
            }
            let inverseIsOrdered = relationship.inverseToMany
                .flatMap { graph.toMany(relationship.target, $0) }?.isOrdered ?? false
            // An ordered list keeps the stored positions of its members before its first change, or
            // after its last one; a set numbers new links by their offset.
            let renumbered = relationship.isOrdered
                ? try renumbering(from: old, to: new) { member throws(StrataError) in
                    try integers(builder.joinPosition(table: table, own: own, other: other, position: position),
                                 [.integer(id), .integer(member)]).first
                }
                : (offsets: 0..<new.count, base: 0)
            let insert = builder.insertJoinRow(table: table, own: own, other: other, position: position, lastInOther: inverseIsOrdered)
            for (offset, member) in new.enumerated() {
                let place = renumbered.base + Int64(offset)
                guard oldMembers.contains(member) else {
                    let values: [DatabaseValue] = [.integer(id), .integer(member), .integer(place)]
                    try run(insert, inverseIsOrdered ? values + [.integer(member)] : values)
                    if let inverse = relationship.inverseToMany {
                        recordMembershipChange(relationship.target, member, toMany: inverse)
                    }
                    continue
                }
                if relationship.isOrdered, renumbered.offsets.contains(offset) {
                    try run(builder.setJoinPosition(table: table, own: own, other: other, position: position),
                            [.integer(place), .integer(id), .integer(member)])
                }
            }
        }
        recordMembershipChange(relationship.source, id, toMany: relationship.index)
    }

    /// Which members of an ordered list that went from `old` to `new` take new stored positions: those
    /// at `offsets`, each at `base + offset`. The members before them (a common prefix) or after them (a
    /// common suffix) are where they were and keep their stored positions, so the new ones go one past
    /// the prefix's last (`storedPosition`), or one before the suffix's first, whichever rewrites fewer:
    /// appending to a list of n members, or putting one in front, writes one position instead of n.
    private func renumbering(
        from old: [Int64], to new: [Int64], storedPosition: (Int64) throws(StrataError) -> Int64?
    ) throws(StrataError) -> (offsets: Range<Int>, base: Int64) {
        let prefix = zip(old, new).prefix { $0 == $1 }.count
        // The suffix never overlaps the prefix (in `[a, a]` to `[a]`, `a` is a prefix, not both).
        let suffix = min(zip(old.reversed(), new.reversed()).prefix { $0 == $1 }.count, min(old.count, new.count) - prefix)
        if suffix > prefix {
            // Positions below the suffix's first stored one: negative ones too, when it was near 0.
            let end = new.count - suffix
            let first = try storedPosition(new[end]) ?? Int64(end)
            return (0..<end, first - Int64(end))
        }
        guard prefix > 0 else { return (0..<new.count, 0) }
        let last = try storedPosition(new[prefix - 1]) ?? Int64(prefix - 1)
        return (prefix..<new.count, last + 1 - Int64(prefix))
    }

    // MARK: To-one

    /// Checks that the target of a to-one relationship exists before it is stored.
    func checkTarget(_ toOne: SchemaGraph.ToOne, _ target: Int64) throws(StrataError) {
        guard try !integers(builder.exists(table: toOne.target), [.integer(target)]).isEmpty else {
            throw notFound(toOne.target, target, from: toOne.source, toOne.property)
        }
    }

    /// Follows a to-one foreign key that went from `old` to `new` on object `id`: the inverse to-many of
    /// both targets changed, and an ordered inverse puts the object last in its new owner's list.
    func toOneChanged(_ toOne: SchemaGraph.ToOne, of id: Int64, from old: Int64?, to new: Int64?) throws(StrataError) {
        guard old != new, let inverse = toOne.inverseToMany, let relationship = graph.toMany(toOne.target, inverse) else { return }
        if case .foreignKey(_, let position?) = relationship.storage {
            if let new {
                try run(builder.appendPosition(table: toOne.source, foreignKey: toOne.column, position: position),
                        [.integer(new), .integer(id), .integer(id)])
            } else {
                try run(builder.setPosition(table: toOne.source, column: position), [.null, .integer(id)])
            }
        }
        if let old { recordMembershipChange(toOne.target, old, toMany: inverse) }
        if let new { recordMembershipChange(toOne.target, new, toMany: inverse) }
    }

    // MARK: Delete rules

    /// Deletes objects of `entity` with their relationships' delete rules. A refused delete leaves
    /// nothing behind: every `.deny` on the way, for all of `ids`, is checked before the first write.
    /// Objects that point at each other (a cycle of cascades) are checked against their foreign keys at
    /// the commit, once all of them are gone.
    func deleteWithRules(_ entity: String, _ ids: [Int64]) throws(StrataError) {
        if graph.hasDenyRule {
            var checked: Set<String> = []
            for id in ids { try checkDenyRules(entity, id, visited: &checked) }
        }
        // SQLite turns the deferral off at every COMMIT and ROLLBACK: an unsafe transaction, which commits
        // several times, turns it on again in each SQLite transaction.
        if foreignKeysDeferredIn != connection.writeTransactionNumber {
            try connection.execute("PRAGMA defer_foreign_keys = ON")
            foreignKeysDeferredIn = connection.writeTransactionNumber
        }
        var visited: Set<String> = []
        for id in ids { try deleteApplyingRules(entity, id, visited: &visited) }
    }

    /// Deletes an object after applying the delete rules of every relationship it takes part in: the
    /// objects its to-many relationships cascade to go first, then the object, then those its to-one
    /// relationships cascade to. The walk keeps its own stack, not the thread's: a chain of cascades may
    /// be thousands of objects deep.
    private func deleteApplyingRules(_ entity: String, _ id: Int64, visited: inout Set<String>) throws(StrataError) {
        enum Step {
            /// Apply the object's to-many rules; its cascades run before `finish`.
            case visit(String, Int64)
            /// Apply its to-one rules, delete its row, then cascade along its to-ones.
            case finish(String, Int64)
        }
        var steps: [Step] = [.visit(entity, id)]
        while let step = steps.popLast() {
            switch step {
            case .visit(let entity, let id):
                guard visited.insert("\(entity)#\(id)").inserted else { continue }
                var members: [(String, Int64)] = []
                for relationship in graph.toMany[entity] ?? [] {
                    let related = try relatedIDs(relationship, of: id)
                    guard !related.isEmpty else { continue }
                    switch relationship.deleteRule {
                    case .deny:
                        throw denied(entity, id, relationship.property, relationship.target, related)
                    case .cascade:
                        members += related.map { (relationship.target, $0) }
                    case .nullify:
                        try applyToMany(relationship, of: id, from: related, to: [])
                    }
                }
                steps.append(.finish(entity, id))
                steps += members.reversed().map { .visit($0.0, $0.1) }
            case .finish(let entity, let id):
                let cascades = try deleteRow(entity, id)
                steps += cascades.reversed().map { .visit($0.0, $0.1) }
            }
        }
    }

    /// Applies an object's to-one rules, clears what points to it, and deletes its row; returns the
    /// objects its to-one relationships cascade to.
    private func deleteRow(_ entity: String, _ id: Int64) throws(StrataError) -> [(String, Int64)] {
        var cascades: [(String, Int64)] = []
        for toOne in graph.toOne[entity] ?? [] {
            guard let target = try foreignKey(toOne, of: id) else { continue }
            switch toOne.deleteRule {
            case .deny:
                throw denied(entity, id, toOne.property, toOne.target, [target])
            case .cascade:
                cascades.append((toOne.target, target))
            case .nullify:
                if let inverse = toOne.inverseToMany { recordMembershipChange(toOne.target, target, toMany: inverse) }
            }
        }
        // To-one relationships of others that point here without an inverse: cleared.
        for incoming in graph.incomingToOnes(to: entity) {
            let cleared = try integers(
                builder.clearForeignKeys(table: incoming.source, column: incoming.column, position: nil), [.integer(id)])
            for source in cleared {
                recordUpdate(entity: incoming.source, id: source, fields: [incoming.property])
            }
        }
        // Join rows of others' one-way to-many relationships that hold this object.
        for incoming in graph.incomingJoinTables(to: entity) {
            guard case .joinTable(let table, let own, let other, _) = incoming.storage else { continue }
            let sources = try integers(builder.deleteJoinRows(table: table, column: other, returning: own), [.integer(id)])
            for source in sources { recordMembershipChange(incoming.source, source, toMany: incoming.index) }
        }
        let kept = try preservedValues(entity, id)
        try run(builder.deleteRow(table: entity), [.integer(id)])
        if connection.changes > 0 {
            recordDelete(entity: entity, id: id, preserving: kept)
        }
        return cascades
    }

    /// Walks what deleting `entity` `id` would delete, as ``deleteApplyingRules(_:_:visited:)`` does,
    /// without writing, and throws where a `.deny` rule would refuse. Keeps its own stack, as that does.
    private func checkDenyRules(_ entity: String, _ id: Int64, visited: inout Set<String>) throws(StrataError) {
        var pending: [(String, Int64)] = [(entity, id)]
        while let (entity, id) = pending.popLast() {
            guard visited.insert("\(entity)#\(id)").inserted else { continue }
            var next: [(String, Int64)] = []
            for relationship in graph.toMany[entity] ?? [] where relationship.deleteRule != .nullify {
                let members = try relatedIDs(relationship, of: id)
                guard !members.isEmpty else { continue }
                if relationship.deleteRule == .deny { throw denied(entity, id, relationship.property, relationship.target, members) }
                next += members.map { (relationship.target, $0) }
            }
            for toOne in graph.toOne[entity] ?? [] where toOne.deleteRule != .nullify {
                guard let target = try foreignKey(toOne, of: id) else { continue }
                if toOne.deleteRule == .deny { throw denied(entity, id, toOne.property, toOne.target, [target]) }
                next.append((toOne.target, target))
            }
            pending += next.reversed()
        }
    }

    private func denied(_ entity: String, _ id: Int64, _ property: String, _ target: String, _ members: [Int64]) -> StrataError {
        let names = members.prefix(10).map { "\(target)(\($0))" }.joined(separator: ", ")
        let more = members.count > 10 ? " and \(members.count - 10) more" : ""
        return StrataError(
            .deleteDenied,
            "Cannot delete \(entity)(\(id)): its relationship '\(property)' still holds \(names)\(more), and its delete "
                + "rule is deny. Delete or detach those objects first.",
            entity: entity, field: property)
    }
}
