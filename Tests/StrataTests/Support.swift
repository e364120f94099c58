import Foundation
import Testing
@testable import Strata

// MARK: - Entities used across the suites

@Entity
struct Person {
    var name: String = ""
    @Field(.indexed) var age: Int = 0
    @Field(.unique) var email: String?
}

@Entity(name: "Animal")
struct Pet {
    @Field(column: "pet_name") var name: String = ""
    var ownerID: Person.ID?
}

@Entity
struct Counter {
    @Field(.unique) var key: String = ""
    var value: Int = 0
}

enum Mood: String, DatabaseValueConvertible {
    case happy, grumpy
}

enum Priority: Int, DatabaseValueConvertible {
    case low = 1, high = 9
}

@Entity
struct AllTypes {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double: Double = 0
    var float: Float = 0
    var string: String = ""
    var data: Data = Data()
    var date: Date = Date(timeIntervalSince1970: 0)
    var uuid: UUID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var url: URL = URL(string: "https://example.com")!
    var decimal: Decimal = 0
    var mood: Mood = .happy
    var priority: Priority = .low
    var optionalInt: Int?
    var optionalString: String?
    var optionalDate: Date?
    var optionalMood: Mood?
    @Field(dynamicInitialValue: { UUID() }) var token: UUID = UUID()
    @Field(dynamicInitialValue: { Date() }) var created: Date = .distantPast
}

let testSchema = Schema("V1", Person.self, Pet.self, Counter.self, AllTypes.self)

// MARK: - Stores

/// The kinds of store every behaviour is checked against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, file

    var testDescription: String { rawValue }
}

/// A temporary directory that is removed when the test's scope ends.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A stack on the given kind of store; the returned directory keeps a file store alive.
func makeStack(
    _ kind: StoreKind = .inMemory, schema: Schema = testSchema,
    configuration: DataStack.Configuration = DataStack.Configuration()
) async throws -> (DataStack, TemporaryDirectory?) {
    switch kind {
    case .inMemory:
        return (try await DataStack(schema, storage: InMemoryStore(), configuration: configuration), nil)
    case .file:
        let directory = try TemporaryDirectory()
        let stack = try await DataStack(
            schema, storage: SQLiteStore(path: directory.path("test.sqlite")), configuration: configuration)
        return (stack, directory)
    }
}

/// Expects `body` to throw a ``StrataError`` and returns it.
@discardableResult
func expectStrataError<R>(
    _ code: StrataError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> R
) async -> StrataError? {
    do {
        _ = try await body()
        return strataError(nil, expected: code, sourceLocation: sourceLocation)
    } catch {
        return strataError(error, expected: code, sourceLocation: sourceLocation)
    }
}

/// ``expectStrataError(_:sourceLocation:_:)`` for a synchronous body, such as code inside a
/// transaction's closure.
@discardableResult
func expectStrataErrorNow<R>(
    _ code: StrataError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> StrataError? {
    do {
        _ = try body()
        return strataError(nil, expected: code, sourceLocation: sourceLocation)
    } catch {
        return strataError(error, expected: code, sourceLocation: sourceLocation)
    }
}

/// Records an issue unless `thrown` is a ``StrataError`` with `code`; returns it when it is one.
private func strataError(_ thrown: (any Error)?, expected code: StrataError.Code, sourceLocation: SourceLocation) -> StrataError? {
    guard let thrown else {
        Issue.record("Expected StrataError.\(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    }
    guard let error = thrown as? StrataError else {
        Issue.record("Expected StrataError.\(code), got \(thrown)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    return error
}

// MARK: - Randomness

/// A small deterministic random generator (SplitMix64), so that a failing case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
