extension SQLExpression {
    /// The entities, besides the filtered one, whose changes can change this expression's result.
    func dependencies(graph: SchemaGraph) -> Set<String> {
        switch self {
        case .column(let column):
            // Each relationship a related column follows makes its target a dependency.
            let targets = Set(column.through.map(\.target))
            switch column.kind {
            case .column: return targets
            case .toManyCount(let index): return targets.union([graph.toMany(column.entity, index)?.target].compactMap { $0 })
            case .derived(let index):
                guard let entity = graph.entities[column.entity], index < entity.derived.count,
                    let relationship = graph.toMany[column.entity]?.first(where: { $0.property == entity.derived[index].relationship })
                else { return targets }
                return targets.union([relationship.target])
            }
        case .value, .constant, .invalid: return []
        case .compare(let left, _, let right), .and(let left, let right), .or(let left, let right):
            return left.dependencies(graph: graph).union(right.dependencies(graph: graph))
        case .isNull(let operand, _), .inList(let operand, _, _), .not(let operand):
            return operand.dependencies(graph: graph)
        case .between(let operand, let lower, let upper):
            return operand.dependencies(graph: graph).union(lower.dependencies(graph: graph)).union(upper.dependencies(graph: graph))
        case .text(_, let left, let right, _):
            return left.dependencies(graph: graph).union(right.dependencies(graph: graph))
        case .related(let entity, let field, let condition):
            let target = graph.toOne[entity]?.first { $0.fieldIndex == field }?.target
            return condition.dependencies(graph: graph).union([target].compactMap { $0 })
        case .anyRelated(let entity, let index, let condition), .allRelated(let entity, let index, let condition):
            return condition.dependencies(graph: graph).union([graph.toMany(entity, index)?.target].compactMap { $0 })
        }
    }
}
