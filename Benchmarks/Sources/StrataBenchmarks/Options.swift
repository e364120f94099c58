import Foundation

/// The command line: `strata-benchmarks [--rounds N] [--only a,c,l,m,o,…] [--quick] [--load MODE] [--northwind PATH] …`.
struct Options: Sendable {
    var rounds = 5
    var workloads = Workload.allCases
    var quick = false
    var northwindPath = Northwind.defaultPath()
    var markdownPath: String?
    var contenders = Contender.allCases
    var load = LoadMode.none
    var otherProcessFullSync = false

    static let usage = """
        usage: strata-benchmarks [--rounds N] [--only a,b,c,d,d2,e,f,g,h,i,j,k,l,m,n,o] [--quick] [--load none|taskset|busy]
                                 [--northwind PATH] [--markdown FILE] [--contenders LIST] [--n-full-sync]
          --rounds N        rounds of A B C … per workload (default 5, at least 1)
          --only LIST       run only these workloads (k means k64 and k1000; l means l1, l2 and l3;
                            m means m1, m2 and m3; o means oa, ob, oc and od)
          --quick           smoke run: 2 rounds, h for 2 s, j with 50 loads in all (scaled to 500),
                            k with 10,000 operations instead of 100,000
          --load MODE       what else loads the machine during the run: none (default); taskset: pin the
                            whole process to CPU 0 at start; busy: 2 background threads spin throughout
          --northwind PATH  the Northwind database for j (default: ../shared/data/northwind.sqlite
                            relative to the repository root); j is skipped when it is absent
          --markdown FILE   also write the tables to FILE
          --contenders LIST run only some implementations (raw,grdb-row,grdb-sync,grdb-codable,strata,
                            strata-history; o's stacks: strata-one-store,strata-item-in-main,
                            strata-item-attached), to profile one
          --n-full-sync     n: the other process commits with synchronous = FULL (default NORMAL)
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
                    if name == "k" {
                        selected.formUnion([.k64, .k1000])
                        continue
                    }
                    if name == "l" {
                        selected.formUnion([.l1, .l2, .l3])
                        continue
                    }
                    if name == "m" {
                        selected.formUnion([.m1, .m2, .m3])
                        continue
                    }
                    if name == "o" {
                        selected.formUnion([.oa, .ob, .oc, .od])
                        continue
                    }
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
                let names = [
                    "raw": Contender.raw, "grdb-row": .grdbRow, "grdb-sync": .grdbSync, "grdb-codable": .grdbCodable,
                    "strata": .strata, "strata-history": .strataHistory, "strata-one-store": .strataOneStore,
                    "strata-item-in-main": .strataItemInMain, "strata-item-attached": .strataItemAttached,
                ]
                let selected = try value.split(separator: ",").map { name in
                    guard let contender = names[String(name)] else {
                        throw RawError(description: "unknown implementation '\(name)'")
                    }
                    return contender
                }
                options.contenders = Contender.allCases.filter(selected.contains)
            case "--load":
                guard let value = iterator.next(), let load = LoadMode(rawValue: value.lowercased()) else {
                    throw RawError(description: "--load needs none, taskset or busy")
                }
                options.load = load
            case "--n-full-sync":
                options.otherProcessFullSync = true
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
