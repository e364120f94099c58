/// The statements that keep relationships stored: foreign keys, positions and join rows.
extension QueryBuilder {
    private var id: String { dialect.quote("id") }

    /// `SELECT <related id> FROM ... WHERE <source> = ? ORDER BY <position>`.
    func relatedIDs(_ relationship: SchemaGraph.ToMany) -> String {
        switch relationship.storage {
        case .foreignKey(let column, let position):
            let order = position.map { "\(dialect.quote($0)), \(id)" } ?? id
            return "SELECT \(id) FROM \(qualified(relationship.target)) WHERE \(dialect.quote(column)) = ? ORDER BY \(order)"
        case .joinTable(let table, let own, let other, let position):
            return "SELECT \(dialect.quote(other)) FROM \(qualified(table)) WHERE \(dialect.quote(own)) = ? "
                + "ORDER BY \(dialect.quote(position)), \(dialect.quote(other))"
        }
    }

    /// `UPDATE target SET fk = ? WHERE id = ?` (link) or, with `onlyIfOwner`, `... WHERE id = ? AND fk = ?` (unlink).
    func setForeignKey(table: String, column: String, position: String?, onlyIfOwner: Bool) -> String {
        let positionReset = position.map { ", \(dialect.quote($0)) = NULL" } ?? ""
        if onlyIfOwner {
            return "UPDATE \(qualified(table)) SET \(dialect.quote(column)) = NULL\(positionReset) "
                + "WHERE \(id) = ? AND \(dialect.quote(column)) = ?"
        }
        return "UPDATE \(qualified(table)) SET \(dialect.quote(column)) = ? WHERE \(id) = ?"
    }

    /// `UPDATE table SET position = ? WHERE id = ?`.
    func setPosition(table: String, column: String) -> String {
        "UPDATE \(qualified(table)) SET \(dialect.quote(column)) = ? WHERE \(id) = ?"
    }

    /// Puts an object last in the ordered list of its new owner: position = max + 1.
    func appendPosition(table: String, foreignKey: String, position: String) -> String {
        let t = qualified(table)
        return "UPDATE \(t) SET \(dialect.quote(position)) = (SELECT coalesce(max(\(dialect.quote(position))) + 1, 0) "
            + "FROM \(t) WHERE \(dialect.quote(foreignKey)) = ? AND \(id) <> ?) WHERE \(id) = ?"
    }

    /// `SELECT 1 FROM table WHERE id = ?`.
    func exists(table: String) -> String {
        "SELECT 1 FROM \(qualified(table)) WHERE \(id) = ?"
    }

    /// `SELECT column FROM table WHERE id = ?`.
    func selectColumn(_ column: String, table: String) -> String {
        "SELECT \(dialect.quote(column)) FROM \(qualified(table)) WHERE \(id) = ?"
    }

    /// Inserts a join row at a position in the owner's list (the first `?`s: owner, member, position).
    /// With `lastInOther`, the owner also goes last in the member's list (a fourth `?`: the member);
    /// without, its position there is 0: that side is not ordered, and finding the last position would
    /// read every link of the member.
    func insertJoinRow(table: String, own: String, other: String, position: String, lastInOther: Bool) -> String {
        let otherPosition = position == "source_position" ? "target_position" : "source_position"
        let t = qualified(table)
        let columns = "INSERT INTO \(t) (\(dialect.quote(own)), \(dialect.quote(other)), \(dialect.quote(position)), "
            + "\(dialect.quote(otherPosition))) VALUES (?, ?, ?, "
        guard lastInOther else { return columns + "0)" }
        return columns + "(SELECT coalesce(max(\(dialect.quote(otherPosition))) + 1, 0) FROM \(t) WHERE \(dialect.quote(other)) = ?))"
    }

    /// `SELECT own FROM join WHERE other = ?`: the objects whose relationship holds an object.
    func joinOwners(table: String, own: String, other: String) -> String {
        "SELECT \(dialect.quote(own)) FROM \(qualified(table)) WHERE \(dialect.quote(other)) = ?"
    }

    /// `DELETE FROM join WHERE own = ? AND other = ?`.
    func deleteJoinRow(table: String, own: String, other: String) -> String {
        "DELETE FROM \(qualified(table)) WHERE \(dialect.quote(own)) = ? AND \(dialect.quote(other)) = ?"
    }

    /// `UPDATE join SET position = ? WHERE own = ? AND other = ?`.
    func setJoinPosition(table: String, own: String, other: String, position: String) -> String {
        "UPDATE \(qualified(table)) SET \(dialect.quote(position)) = ? WHERE \(dialect.quote(own)) = ? AND \(dialect.quote(other)) = ?"
    }

    /// `SELECT position FROM join WHERE own = ? AND other = ?`.
    func joinPosition(table: String, own: String, other: String, position: String) -> String {
        "SELECT \(dialect.quote(position)) FROM \(qualified(table)) WHERE \(dialect.quote(own)) = ? AND \(dialect.quote(other)) = ?"
    }

    /// `DELETE FROM join WHERE column = ? RETURNING otherColumn`.
    func deleteJoinRows(table: String, column: String, returning: String) -> String {
        "DELETE FROM \(qualified(table)) WHERE \(dialect.quote(column)) = ? RETURNING \(dialect.quote(returning))"
    }

    /// `UPDATE table SET fk = NULL WHERE fk = ? RETURNING id`.
    func clearForeignKeys(table: String, column: String, position: String?) -> String {
        let positionReset = position.map { ", \(dialect.quote($0)) = NULL" } ?? ""
        return "UPDATE \(qualified(table)) SET \(dialect.quote(column)) = NULL\(positionReset) "
            + "WHERE \(dialect.quote(column)) = ? RETURNING \(id)"
    }

    /// `DELETE FROM table WHERE id = ?`.
    func deleteRow(table: String) -> String {
        "DELETE FROM \(qualified(table)) WHERE \(id) = ?"
    }
}
