import Synchronization

/// An immutable list of objects in sections, as a list publisher delivers it, with the difference from
/// the snapshot before it.
///
/// ```swift
/// for try await list in stack.listPublisher(From<Person>().sectionBy(\.age).orderBy(.ascending(\.name))) {
///     for section in list.sections { print(section.name ?? "", section.items.map(\.name)) }
///     if let diff = list.diff { apply(diff.insertedIDs, diff.deletedIDs, diff.updatedIDs, diff.moves) }
/// }
/// ```
/// Two snapshots are equal when they hold the same sections with the same objects (the diff is not
/// compared).
public struct ListSnapshot<E: Entity>: Sendable, Equatable {
    /// One section: its identifier (the section field's value), display name and objects.
    public struct Section: Sendable, Hashable, Identifiable {
        /// The section field's value, written out: the text itself, or the number. Empty for `NULL` and
        /// for the one section of an unsectioned list; an empty text is `"\u{0}"` (and a text that
        /// starts with `"\u{0}"` gets one more in front), so that it is a section apart from `NULL`'s.
        /// Texts that differ only in their Unicode normalization are sections apart, though Swift's `==`
        /// calls their identifiers equal: compare identifiers by their `utf8` bytes.
        public let id: String
        /// The display name, from the `name` transform of ``From/sectionBy(_:name:)``.
        public let name: String?
        /// The objects, in order.
        public let items: [E]

        /// Two sections are equal when their identifiers and names are the same UTF-8 bytes (texts that
        /// differ only in their Unicode normalization are two section values, as they are to SQLite)
        /// and they hold equal objects.
        public static func == (lhs: Section, rhs: Section) -> Bool {
            ExactText(lhs.id) == ExactText(rhs.id) && lhs.name.hasSameBytes(as: rhs.name) && lhs.items == rhs.items
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(ExactText(id))
            hasher.combine(items)
        }
    }

    /// The sections, in order. An unsectioned list has one section (when it is not empty).
    public let sections: [Section]
    /// The difference from the previous snapshot; `nil` for the first one.
    public let diff: ListDiff<E>?
    /// Whether the objects are equal to the previous snapshot's but carry changed prefetched objects,
    /// so that the snapshot is new although it compares equal.
    let carriesRelatedChanges: Bool
    /// Identifies this snapshot among a publisher's, so that a consumer can tell which one its diff
    /// starts from.
    let token: UInt64
    /// The token of the snapshot ``diff`` starts from.
    let diffBase: UInt64?
    /// How many of the stack's commits the read behind this snapshot saw (see `CommitLog`), when known:
    /// the next snapshot can then merge exactly the commits since.
    let commitsSeen: Int?

    init(
        sections: [Section], diff: ListDiff<E>?, carriesRelatedChanges: Bool = false, token: UInt64? = nil,
        diffBase: UInt64? = nil, commitsSeen: Int? = nil
    ) {
        self.sections = sections
        self.diff = diff
        self.carriesRelatedChanges = carriesRelatedChanges
        self.token = token ?? ListSnapshotTokens.next()
        self.diffBase = diffBase
        self.commitsSeen = commitsSeen
    }

    /// The same snapshot without its diff: the first one a consumer receives.
    func withoutDiff() -> ListSnapshot<E> {
        ListSnapshot(sections: sections, diff: nil, token: token, commitsSeen: commitsSeen)
    }

    /// All objects, section after section.
    public var items: [E] { sections.flatMap(\.items) }
    /// The IDs of all objects, in order.
    public var itemIDs: [EntityID<E>] { sections.flatMap { $0.items.map(\.id) } }
    /// The number of objects.
    public var count: Int { sections.reduce(0) { $0 + $1.items.count } }
    /// Whether there are no objects.
    public var isEmpty: Bool { sections.isEmpty }
    /// The number of sections.
    public var numberOfSections: Int { sections.count }

    /// The object at a position.
    public subscript(index: ListIndex) -> E {
        sections[index.section].items[index.item]
    }

    /// The position of an object, if it is in the list.
    public func index(of id: EntityID<E>) -> ListIndex? {
        for (sectionIndex, section) in sections.enumerated() {
            if let item = section.items.firstIndex(where: { $0.id == id }) {
                return ListIndex(section: sectionIndex, item: item)
            }
        }
        return nil
    }

    /// The snapshot a diff leads to from this one. For the diff a snapshot carries,
    /// `previous.applying(snapshot.diff!) == snapshot`.
    public func applying(_ diff: ListDiff<E>) -> ListSnapshot<E>? {
        guard let headers = ListDiff<E>.headers(of: self).applying(diff.sections),
            let items = ListDiff<E>.items(of: self).applying(diff.items)
        else { return nil }
        return ListSnapshot.grouping(items, headers: headers, diff: nil)
    }

    /// Groups consecutive items into the sections of `headers`.
    static func grouping(_ items: [ListDiff<E>.Item], headers: [ListDiff<E>.SectionHeader], diff: ListDiff<E>?) -> ListSnapshot<E> {
        var byID: [ExactText: [E]] = [:]
        for item in items { byID[ExactText(item.sectionID), default: []].append(item.object) }
        let sections = headers.map { Section(id: $0.id, name: $0.name, items: byID[ExactText($0.id)] ?? []) }
        return ListSnapshot(sections: sections, diff: diff)
    }

    public static func == (lhs: ListSnapshot<E>, rhs: ListSnapshot<E>) -> Bool {
        lhs.sections == rhs.sections
    }
}

/// A position in a ``ListSnapshot``: a section and an item within it.
public struct ListIndex: Hashable, Sendable, Comparable {
    /// The section.
    public let section: Int
    /// The item within the section.
    public let item: Int

    /// A position.
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ListIndex, rhs: ListIndex) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }
}

/// Tokens of list snapshots: unique in the process.
enum ListSnapshotTokens {
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }
}
