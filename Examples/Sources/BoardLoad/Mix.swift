import ArgumentParser

/// The kinds of request of the load, and how often each is sent, as `list=70,get=20,create=10`.
struct Mix: Sendable, ExpressibleByArgument, CustomStringConvertible {
    enum Kind: Int, Sendable, CaseIterable {
        /// `GET /cards?status=todo&sort=-priority&limit=20`
        case list
        /// `GET /cards/{random seeded id}`
        case get
        /// `POST /cards` with a random owner and priority, status `doing` or `done`
        case create
        /// `PATCH /cards/{random seeded id}` with a random status and priority
        case patch
        /// `GET /health`, the HTTP stack alone (a baseline)
        case health

        var name: String { ["list", "get", "create", "patch", "health"][rawValue] }

        init?(name: String) {
            guard let kind = Kind.allCases.first(where: { $0.name == name }) else { return nil }
            self = kind
        }
    }

    /// The kinds with their weights, in the order given.
    var weights: [(kind: Kind, weight: Int)]

    var total: Int { weights.reduce(0) { $0 + $1.weight } }

    init?(argument: String) {
        var weights: [(kind: Kind, weight: Int)] = []
        for part in argument.split(separator: ",") {
            let pair = part.split(separator: "=")
            guard pair.count == 2, let kind = Kind(name: String(pair[0])), let weight = Int(pair[1]),
                weight > 0
            else { return nil }
            weights.append((kind, weight))
        }
        guard !weights.isEmpty else { return nil }
        self.weights = weights
    }

    /// The kind for a draw in `0..<total`.
    func kind(at draw: Int) -> Kind {
        var rest = draw
        for (kind, weight) in weights {
            if rest < weight { return kind }
            rest -= weight
        }
        return weights[weights.count - 1].kind
    }

    var description: String {
        weights.map { "\($0.kind.name)=\($0.weight)" }.joined(separator: ",")
    }
}
