/// Parses the JSON arrays of row IDs that to-many relationship columns hold (`[1,2,3]`).
enum IDList {
    static func parse(_ text: String) throws(StrataError) -> [Int64] {
        var ids: [Int64] = []
        var current: Int64 = 0
        var negative = false
        var inNumber = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (product, overflow1) = current.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = product.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { throw invalid(text) }
                current = sum
                inNumber = true
            case UInt8(ascii: "-"):
                negative = true
            case UInt8(ascii: ","), UInt8(ascii: "]"):
                if inNumber { ids.append(negative ? -current : current) }
                current = 0
                negative = false
                inNumber = false
            case UInt8(ascii: "["), UInt8(ascii: " "):
                continue
            default:
                throw invalid(text)
            }
        }
        return ids
    }

    private static func invalid(_ text: String) -> StrataError {
        StrataError(.typeMismatch, "A to-many relationship column holds \(text.prefix(40)), which is not a list of IDs.")
            .hidingValues("A to-many relationship column holds text that is not a list of IDs.")
    }
}
