internal import CSQLite
import Foundation

/// `strata_initial_value(index)`: a fresh value per row for a field a migration adds, from the field's
/// `@Field(dynamicInitialValue:)` closure (a `UUID` per object, the migration's date), where a default
/// is one value for every row. Registered on a migration's connection when a step needs it; not
/// deterministic. Confined to that connection's thread, as the connection is.
final class InitialValueFunction {
    static let name = "strata_initial_value"
    private var makers: [@Sendable () -> DatabaseValue] = []

    /// The SQL that calls `maker` once per row.
    func call(_ maker: @escaping @Sendable () -> DatabaseValue) -> String {
        makers.append(maker)
        return "\(Self.name)(\(makers.count - 1))"
    }

    fileprivate func value(at index: Int) -> DatabaseValue {
        makers.indices.contains(index) ? makers[index]() : .null
    }

    fileprivate static func setResult(_ value: DatabaseValue, _ context: OpaquePointer?) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let integer): sqlite3_result_int64(context, integer)
        case .real(let real): sqlite3_result_double(context, real)
        case .text(let text):
            // Counted, so a NUL character inside stays; the terminator gives an empty text an address.
            let bytes = Array(text.utf8) + [0]
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_result_text64(
                        context, chars.baseAddress, UInt64(chars.count - 1), SQLITE_TRANSIENT_DESTRUCTOR, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                sqlite3_result_blob64(context, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count), SQLITE_TRANSIENT_DESTRUCTOR)
            }
        }
    }
}

extension Connection {
    /// The connection's `strata_initial_value` function, registered at its first use.
    func initialValueFunction() -> InitialValueFunction {
        if let function = initialValues { return function }
        let function = InitialValueFunction()
        initialValues = function
        // SQLite holds the function object until the connection closes (the destructor releases it).
        sqlite3_create_function_v2(
            handle, InitialValueFunction.name, 1, SQLITE_UTF8, Unmanaged.passRetained(function).toOpaque(),
            { context, _, arguments in
                guard let data = sqlite3_user_data(context), let arguments else { return sqlite3_result_null(context) }
                let function = Unmanaged<InitialValueFunction>.fromOpaque(data).takeUnretainedValue()
                let index = Int(sqlite3_value_int64(arguments[0]))
                InitialValueFunction.setResult(function.value(at: index), context)
            }, nil, nil,
            { data in
                guard let data else { return }
                Unmanaged<InitialValueFunction>.fromOpaque(data).release()
            })
        return function
    }
}
