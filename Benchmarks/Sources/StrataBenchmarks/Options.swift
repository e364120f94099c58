import Foundation

/// The command line: `strata-benchmarks [--rounds N] [--only a,c,…] [--quick] [--northwind PATH]`.
struct Options: Sendable {
    var rounds = 5
    var workloads = Workload.allCases
    var quick = false
    var northwindPath = Northwind.defaultPath()
    var markdownPath: String?
    var contenders = Contender.allCases

    static let usage = """
        usage: strata-benchmarks [--rounds N] [--only a,b,c,d,d2,e,f,g,h,i,j] [--quick] [--northwind PATH] [--markdown FILE]
          --rounds N        rounds of A B C … per workload (default 5, at least 1)
          --only LIST       run only these workloads
          --quick           smoke run: 2 rounds, h for 2 s, j with 50 loads in all (scaled to 500)
          --northwind PATH  the Northwind database for j (default: ../shared/data/northwind.sqlite
                            relative to the repository root); j is skipped when it is absent
          --markdown FILE   also write the tables to FILE
          --contenders LIST run only some implementations (raw,grdb-row,grdb-codable,strata), to profile one
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var roundsGiven = false
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--rounds":
                guard let value = iterator.next().flatMap(Int.init), value >= 1 else {
                    throw RawError(description: "--rounds needs a number of at least 1")
                }
                options.rounds = value
                roundsGiven = true
            case "--only":
                guard let value = iterator.next() else { throw RawError(description: "--only needs a list") }
                var selected: Set<Workload> = []
                for name in value.split(separator: ",") {
                    let name = name.trimmingCharacters(in: .whitespaces).lowercased()
                    guard let workload = Workload(rawValue: name) else {
                        throw RawError(description: "unknown workload '\(name)'")
                    }
                    selected.insert(workload)
                }
                options.workloads = Workload.allCases.filter(selected.contains)
            case "--quick":
                options.quick = true
            case "--northwind":
                guard let value = iterator.next() else { throw RawError(description: "--northwind needs a path") }
                options.northwindPath = value
            case "--markdown":
                options.markdownPath = iterator.next()
            case "--contenders":
                guard let value = iterator.next() else { throw RawError(description: "--contenders needs a list") }
                let names = ["raw": Contender.raw, "grdb-row": .grdbRow, "grdb-codable": .grdbCodable, "strata": .strata]
                let selected = try value.split(separator: ",").map { name in
                    guard let contender = names[String(name)] else {
                        throw RawError(description: "unknown implementation '\(name)'")
                    }
                    return contender
                }
                options.contenders = Contender.allCases.filter(selected.contains)
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                throw RawError(description: "unknown option '\(argument)'\n\(usage)")
            }
        }
        if options.quick && !roundsGiven { options.rounds = 2 }
        return options
    }
}
