/// Converts the arguments of a format string to database values, one specifier at a time.
///
/// Arguments arrive as `(any Sendable)?` and are converted while the format string is parsed; nothing
/// of them but ``DatabaseValue``s outlives the parse.
enum FormatArgument {
    /// What a `%@` argument stands for.
    enum Object {
        /// One value (`NULL` for `nil`).
        case scalar(DatabaseValue)
        /// An array, a set or another sequence of values.
        case collection([DatabaseValue])
        /// A `ClosedRange`: both bounds included.
        case closedRange(DatabaseValue, DatabaseValue)
        /// A `Range`: lower bound included, upper bound excluded.
        case halfOpenRange(DatabaseValue, DatabaseValue)
    }

    /// A `%K` argument: a key name.
    static func key(_ argument: (any Sendable)?, _ number: Int, at position: Int) throws(FormatError) -> String {
        switch argument {
        case let key as String: return key
        case let key as Substring: return String(key)
        default:
            throw FormatError(
                "%K at position \(position) expects a key name (String), got \(typeName(argument)) (argument \(number))",
                position: position)
        }
    }

    /// A `%d`-style argument: an integer (or a `Bool`, as 0 or 1), or `nil`.
    static func integer(_ argument: (any Sendable)?, _ number: Int, at position: Int, specifier: String)
        throws(FormatError) -> DatabaseValue
    {
        switch argument {
        case nil: return .null
        case let value as Bool: return .integer(value ? 1 : 0)
        case let value as any BinaryInteger:
            return .integer(Int64(exactly: value) ?? Int64(truncatingIfNeeded: value))
        default:
            throw FormatError(
                "\(specifier) at position \(position) expects an integer argument, got \(typeName(argument)) "
                    + "(argument \(number))",
                position: position)
        }
    }

    /// A `%f`-style argument: a floating-point number (integers are converted), or `nil`.
    static func floatingPoint(_ argument: (any Sendable)?, _ number: Int, at position: Int, specifier: String)
        throws(FormatError) -> DatabaseValue
    {
        switch argument {
        case nil: return .null
        case let value as any BinaryFloatingPoint: return .real(Double(value))
        case let value as any BinaryInteger: return .real(Double(value))
        default:
            throw FormatError(
                "\(specifier) at position \(position) expects a floating-point argument, got \(typeName(argument)) "
                    + "(argument \(number))",
                position: position)
        }
    }

    /// A `%@` argument: any ``DatabaseValueConvertible`` value, `nil`, a sequence of such values or a range.
    static func object(_ argument: (any Sendable)?, _ number: Int, at position: Int) throws(FormatError) -> Object {
        guard let argument else { return .scalar(.null) }
        if let value = argument as? any DatabaseValueConvertible {
            return .scalar(value.databaseValue)
        }
        if let value = argument as? Substring {
            return .scalar(.text(String(value)))
        }
        if let range = argument as? any FormatRangeArgument {
            let (lower, upper) = range.formatBounds
            return range.includesUpperBound ? .closedRange(lower, upper) : .halfOpenRange(lower, upper)
        }
        if let sequence = argument as? any Sequence {
            var values: [DatabaseValue] = []
            for (offset, element) in elements(of: sequence).enumerated() {
                guard let value = element as? any DatabaseValueConvertible else {
                    throw FormatError(
                        "%@ at position \(position) got a collection whose element \(offset) is a "
                            + "\(typeName(element)), not a value Strata stores (argument \(number))",
                        position: position)
                }
                values.append(value.databaseValue)
            }
            return .collection(values)
        }
        throw FormatError(
            "%@ at position \(position) expects a value Strata stores (String, Int, Double, Date, UUID, …), "
                + "an array of them or nil, got \(typeName(argument)) (argument \(number))",
            position: position)
    }

    /// The arguments that are IDs, alone or in a collection (their stores are checked, see
    /// ``SQLExpression/storeChecked(_:_:)``).
    static func ids(in arguments: [(any Sendable)?]) -> [Any] {
        var ids: [Any] = []
        for argument in arguments {
            guard let argument else { continue }
            if argument is any StoreTaggedValue {
                ids.append(argument)
            } else if argument is any DatabaseValueConvertible || argument is Substring || argument is any FormatRangeArgument {
                // A value (a text or data is a sequence too) or a range (`0...Int.max` would be walked
                // element by element): no IDs inside.
                continue
            } else if let sequence = argument as? any Sequence {
                ids += elements(of: sequence).filter { $0 is any StoreTaggedValue }
            }
        }
        return ids
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] {
        sequence.map { $0 }
    }

    /// The dynamic type of an argument, for messages.
    static func typeName(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: type(of: value))
    }
}

/// A range passed as a `%@` argument, for `BETWEEN` and `IN`.
protocol FormatRangeArgument {
    var formatBounds: (DatabaseValue, DatabaseValue) { get }
    var includesUpperBound: Bool { get }
    /// Whether a bound is a `UInt64` or `UInt` above `Int64.max` (see ``UnsignedBounds``).
    var holdsBeyondInt64: Bool { get }
}

extension ClosedRange: FormatRangeArgument where Bound: DatabaseValueConvertible {
    var formatBounds: (DatabaseValue, DatabaseValue) { (lowerBound.databaseValue, upperBound.databaseValue) }
    var includesUpperBound: Bool { true }
    var holdsBeyondInt64: Bool { UnsignedBounds.isBeyondInt64(lowerBound) || UnsignedBounds.isBeyondInt64(upperBound) }
}

extension Range: FormatRangeArgument where Bound: DatabaseValueConvertible {
    var formatBounds: (DatabaseValue, DatabaseValue) { (lowerBound.databaseValue, upperBound.databaseValue) }
    var includesUpperBound: Bool { false }
    var holdsBeyondInt64: Bool { UnsignedBounds.isBeyondInt64(lowerBound) || UnsignedBounds.isBeyondInt64(upperBound) }
}
