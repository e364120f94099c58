/// A text compared by its UTF-8 bytes: Swift's `==` calls canonically equivalent texts equal (`"é"`
/// composed and decomposed), where SQLite, which sorts and groups a list's sections, tells them apart.
/// Section identifiers compare this way, so that two sections whose values differ only in their
/// normalization stay two sections, in snapshots and in their diffs.
struct ExactText: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension Optional where Wrapped == String {
    /// Whether both are `nil`, or texts of the same UTF-8 bytes.
    func hasSameBytes(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let lhs?, let rhs?): ExactText(lhs) == ExactText(rhs)
        default: false
        }
    }
}
