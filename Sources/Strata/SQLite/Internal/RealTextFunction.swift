internal import CSQLite

extension Connection {
    /// The name of `strata_real_text(value, isFloat)`, registered on this connection: a number as Swift
    /// prints a `Double` (or, when `isFloat` is 1, a `Float`): the shortest text that reads back as the
    /// same value (`0.1`, `123456789.12345679`), where SQL's `CAST(… AS TEXT)` keeps 15 significant
    /// digits. An integer keeps its digits; `NULL`, text and data stay as they are. What a migration that
    /// turns a `Double` field into a `String` writes.
    func realTextFunction() -> String {
        let name = "strata_real_text"
        guard !hasRealTextFunction else { return name }
        hasRealTextFunction = true
        sqlite3_create_function_v2(
            handle, name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in
                guard let arguments, let value = arguments[0] else { return sqlite3_result_null(context) }
                let text: String
                switch sqlite3_value_type(value) {
                case SQLITE_FLOAT:
                    let number = sqlite3_value_double(value)
                    let isFloat = arguments[1].map { sqlite3_value_int($0) != 0 } ?? false
                    text = isFloat ? Float(number).description : number.description
                case SQLITE_INTEGER:
                    // A whole number a REAL column stored as an integer (or another program wrote): all its digits.
                    text = String(sqlite3_value_int64(value))
                default:
                    // NULL, and text or data another program wrote: kept as they are, as CAST would.
                    return sqlite3_result_value(context, value)
                }
                sqlite3_result_text(context, text, -1, SQLITE_TRANSIENT_DESTRUCTOR)
            }, nil, nil, nil)
        return name
    }
}
