// strata-probe: runs inputs that once crashed the process, for tests that must survive a crash.
//
// Each case prints one line, "<case>: ok <detail>" when it worked or threw a typed error, and the
// process exits 0. A crash (a stack overflow, say) kills the process with a signal instead, which the
// test that launched it reports without going down itself. Not a product: only the tests build it.
import Foundation
import Strata

@Entity
struct ProbeItem {
    var name: String = ""
    var age: Int = 0
}

/// The outcome of a fetch with `filter`: the count, or the code of the `StrataError` it threw.
func outcome(_ stack: DataStack, _ filter: @autoclosure () throws -> Where<ProbeItem>) async -> String {
    do {
        let count = try await stack.fetchCount(From<ProbeItem>().where(try filter()))
        return "ok count \(count)"
    } catch let error as StrataError {
        return "ok error \(error.code)"
    } catch {
        return "untyped error \(error)"
    }
}

// `strata-probe hold <path>`: opens a store at `path` (WAL, so SQLite keeps its shared-memory file
// locked), prints "holding", and keeps it open until standard input ends; then exits without closing,
// as a crashed process would.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "hold" {
    let held = try await DataStack(Schema("V1", ProbeItem.self), storage: SQLiteStore(path: CommandLine.arguments[2]))
    try await held.perform { tx in _ = try tx.create(Into<ProbeItem>()) { $0.name = "held" } }
    FileHandle.standardOutput.write(Data("holding\n".utf8))   // unbuffered, unlike print
    _ = FileHandle.standardInput.readDataToEndOfFile()
    exit(0)
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "import" {
    try await importProbe(path: CommandLine.arguments[2])
    exit(0)
}

if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "history", let count = Int(CommandLine.arguments[3]) {
    try await historyProbe(path: CommandLine.arguments[2], count: count, author: CommandLine.arguments[4])
    exit(0)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "stores", let count = Int(CommandLine.arguments[3]) {
    try await storesProbe(directory: CommandLine.arguments[2], count: count)
    exit(0)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "write", let count = Int(CommandLine.arguments[3]) {
    try await writeProbe(path: CommandLine.arguments[2], count: count)
    exit(0)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "migration" {
    try await migrationProbe(CommandLine.arguments[2], path: CommandLine.arguments[3])
    exit(0)
}

let terms = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10_000 : 10_000
let stack = try await DataStack(Schema("V1", ProbeItem.self))
try await stack.perform { tx in
    for age in 0..<10 { try tx.create(Into<ProbeItem>()) { $0.name = "item \(age)"; $0.age = age } }
}

// Key-path operators, built in a loop as a user would.
var anyAge: Where<ProbeItem> = \.age == -1
for age in 0..<terms { anyAge = anyAge || \ProbeItem.age == age }
print("key-path or: \(await outcome(stack, anyAge))")

var allAges: Where<ProbeItem> = \.age >= 0
for age in 0..<terms { allAges = allAges && \ProbeItem.age != -age - 1 }
print("key-path and: \(await outcome(stack, allAges))")

var negated: Where<ProbeItem> = \.age == 3
for _ in 0..<terms { negated = !negated }
print("nested not: \(await outcome(stack, negated))")

// Format strings.
let orFormat = (0..<terms).map { "age == \($0)" }.joined(separator: " OR ")
print("format or: \(await outcome(stack, try Where(validating: orFormat)))")

let parentheses = String(repeating: "(", count: terms) + "age == 1" + String(repeating: ")", count: terms)
print("format parentheses: \(await outcome(stack, try Where(validating: parentheses)))")

let nots = String(repeating: "NOT ", count: terms) + "age == 1"
print("format not: \(await outcome(stack, try Where(validating: nots)))")

await stack.close()
print("done")
