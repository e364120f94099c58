extension SQLExpression {
    /// The entities, besides the filtered one, whose changes can change this expression's result.
    /// Below ``SQLExpression/maximumNesting`` levels it looks no further: such a filter fails to render.
    func dependencies(graph: SchemaGraph, depth: Int = 0) -> Set<String> {
        guard depth <= SQLExpression.maximumNesting else { return [] }
        let depth = depth + 1
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
        case .storeChecked(_, let inner): return inner.dependencies(graph: graph, depth: depth)
        case .compare(let left, _, let right):
            return left.dependencies(graph: graph, depth: depth).union(right.dependencies(graph: graph, depth: depth))
        case .allOf(let operands), .anyOf(let operands):
            return operands.reduce(into: Set<String>()) { $0.formUnion($1.dependencies(graph: graph, depth: depth)) }
        case .isNull(let operand, _), .inList(let operand, _, _), .not(let operand):
            return operand.dependencies(graph: graph, depth: depth)
        case .between(let operand, let lower, let upper):
            return operand.dependencies(graph: graph, depth: depth).union(lower.dependencies(graph: graph, depth: depth)).union(upper.dependencies(graph: graph, depth: depth))
        case .text(_, let left, let right, _):
            return left.dependencies(graph: graph, depth: depth).union(right.dependencies(graph: graph, depth: depth))
        case .related(let entity, let field, _, let condition):
            let target = graph.toOne[entity]?.first { $0.fieldIndex == field }?.target
            return condition.dependencies(graph: graph, depth: depth).union([target].compactMap { $0 })
        case .anyRelated(let entity, let index, _, let condition), .allRelated(let entity, let index, _, let condition):
            return condition.dependencies(graph: graph, depth: depth).union([graph.toMany(entity, index)?.target].compactMap { $0 })
        }
    }
}
