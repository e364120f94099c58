// The main example: opens a SQLite file, writes in transactions, reads snapshots back, and prints
// what it did. Run it with `swift run strata-example [path]`.
import Foundation
import Strata

@Entity
struct Person {
    var name: String = ""
    @Field(.indexed) var age: Int = 0
    @Field(.unique) var email: String?
    @Field(dynamicInitialValue: { Date() }) var joined: Date = .distantPast
    @Relationship var team: Team.ID?
}

@Entity
struct Team {
    @Field(.unique) var title: String = ""
    var memberCount: Int = 0
}

let arguments = CommandLine.arguments.dropFirst()
let path = arguments.first ?? FileManager.default.temporaryDirectory
    .appendingPathComponent("strata-example-\(ProcessInfo.processInfo.processIdentifier).sqlite").path

let stack = try await DataStack(Schema("V1", Person.self, Team.self), storage: SQLiteStore(path: path))
print("Opened \(path) (schema \(stack.schema.version), version lock \(stack.schema.versionHash))")

// One transaction: everything commits together or not at all.
let team = try await stack.perform { tx in
    let team = try tx.create(Into<Team>()) { $0.title = "Engines \(UUID().uuidString.prefix(4))" }
    for (name, age) in [("Ada", 36), ("Grace", 45), ("Linus", 17), ("Margaret", 33)] {
        try tx.create(Into<Person>()) {
            $0.name = name
            $0.age = age
            $0.email = "\(name.lowercased())-\(UUID().uuidString.prefix(8))@example.com"
            $0.team = team.id
        }
    }
    return try tx.edit(team) { $0.memberCount = 4 }
}
print("Created team \(team.title) with \(team.memberCount) members")

// Reads run on the reader pool and return immutable values.
let adults = try await stack.fetchAll(From<Person>().where(\.age >= 18).orderBy(.ascending(\.name)))
print("Adults: \(adults.map { "\($0.name) (\($0.age))" }.joined(separator: ", "))")

// Relationships hold IDs. A to-one chain is a key path in any query, and prefetching loads the
// related objects with the fetch, so that each ID reads its object's fields.
let members = try await stack.fetchAll(
    From<Person>().where(\.team?.title == team.title).prefetching(\.team).orderBy(.ascending(\.name)))
print("Members: \(members.map { "\($0.name) of \($0.team?.title ?? "no team")" }.joined(separator: ", "))")

// Edits write only what changed; deletes report how many objects went.
let removed = try await stack.perform { tx in
    for person in try tx.fetchAll(From<Person>().where(\.name == "Ada")) {
        try tx.edit(person) { $0.age += 1 }
    }
    return try tx.deleteAll(From<Person>().where(\.age < 18))
}
print("Had a birthday: Ada; removed \(removed) minor(s)")

// A unique field refuses a duplicate, and the failed transaction leaves no trace.
do {
    try await stack.perform { tx in
        try tx.create(Into<Team>()) { $0.title = team.title }
    }
} catch let error as StrataError where error.code == .uniqueConstraint {
    print("Refused a duplicate: \(error.entity ?? "?").\(error.field ?? "?") must be unique")
}

// Several reads on one consistent state.
let (people, teams) = try await stack.read { context in
    (try context.fetchCount(From<Person>()), try context.fetchCount(From<Team>()))
}
print("The store now holds \(people) people and \(teams) team(s)")

// Observation: a count publisher yields the current count, then a new one after each commit.
let watcher = Task {
    var seen: [Int] = []
    for try await count in stack.countPublisher(From<Person>()) {
        seen.append(count)
        if count >= people + 2 { break }
    }
    return seen
}
for name in ["Katherine", "Dorothy"] {
    try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = name; $0.age = 30 } }
}
print("Counts seen by a publisher while two people were added: \(try await watcher.value)")

// Aggregates: one query, grouped.
let byAge = try await stack.queryAttributes(
    From<Person>().select(.attribute(\.age), .count(\.id)).groupBy(\.age).orderBy(.ascending(\.age)))
print("People per age: \(byAge.map { "\($0["age", as: Int.self] ?? 0): \($0["count(id)", as: Int.self] ?? 0)" }.joined(separator: ", "))")
await stack.close()
