public import Hummingbird

/// `GET /owners`.
struct OwnerList: ResponseEncodable, Sendable {
    var items: [OwnerInfo]
}

/// `GET /cards`: one page, and how many cards match in all.
struct CardPage: ResponseEncodable, Sendable {
    var items: [Card]
    var total: Int
    var limit: Int
    var offset: Int
}

extension OwnerInfo: ResponseEncodable {}
extension Card: ResponseEncodable {}
