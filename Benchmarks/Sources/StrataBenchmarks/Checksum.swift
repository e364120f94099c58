/// An order-independent checksum over the rows a workload read: the wrapping sum of one 64-bit hash
/// per row, and the number of rows. Every implementation hashes the same five values of a row (ID,
/// name bytes, age, score bits, created bits), so equal checksums mean the same data was read.
struct Checksum: Hashable, Sendable, CustomStringConvertible {
    private(set) var sum: UInt64 = 0
    private(set) var count = 0

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func hash(_ text: String?) -> UInt64 {
        guard var text else { return 0x6E75_6C6C }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        text.withUTF8 { bytes in
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
            }
        }
        return hash
    }

    /// Adds one row, given as hashes of its values.
    mutating func add(_ values: UInt64...) {
        var hash: UInt64 = 0
        for value in values { hash = Self.mix(hash ^ value) }
        sum &+= hash
        count += 1
    }

    /// Adds one row given as a single hash, without the variadic array of ``add(_:)``.
    @inline(__always)
    mutating func addRowHash(_ hash: UInt64) {
        sum &+= Self.mix(hash)
        count += 1
    }

    /// Adds the rows of another checksum (the sum is order-independent, so partial checksums made by
    /// concurrent tasks merge into the checksum of all their rows).
    mutating func merge(_ other: Checksum) {
        sum &+= other.sum
        count += other.count
    }

    /// Adds one `item` row.
    mutating func addItem(id: Int64, name: String, age: Int, score: Double, created: Double) {
        add(UInt64(bitPattern: id), Self.hash(name), UInt64(bitPattern: Int64(age)), score.bitPattern, created.bitPattern)
    }

    /// Adds a plain value (a count, for instance).
    mutating func addValue(_ value: Int) {
        add(UInt64(bitPattern: Int64(value)))
    }

    var description: String {
        "\(count) rows, " + String(sum, radix: 16)
    }
}
