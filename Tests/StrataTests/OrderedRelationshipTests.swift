import Foundation
import Testing
@testable import Strata

/// Ordered to-many relationships keep their members' stored positions where the list did not change,
/// and find an end of a list through an index.
@Suite("Ordered relationships")
struct OrderedRelationshipTests {
    let schema = Schema("V1", Playlist.self, Track.self, Shelf.self, Volume.self, Reader.self)

    /// The stored positions of a playlist's tracks, in track order.
    func positions(_ stack: DataStack, _ playlist: Playlist.ID) async throws -> [Int64] {
        try await stack.perform { tx in
            let statement = try tx.connection.makeStatement(
                "SELECT source_position FROM Playlist_tracks WHERE source = ? ORDER BY source_position, target")
            try statement.bind([.integer(playlist.rawValue)])
            var positions: [Int64] = []
            while try statement.step() {
                if case .integer(let position) = statement.value(at: 0) { positions.append(position) }
            }
            return positions
        }
    }

    @Test("an edit of an ordered list keeps the positions before its first change or after its last: an append or a prepend writes one")
    func appendKeepsPositions() async throws {
        let (stack, _) = try await makeStack(schema: schema)
        let (playlist, tracks) = try await stack.perform { tx in
            let tracks = try (0..<5).map { index in try tx.create(Into<Track>()) { $0.title = "T\(index)" }.id }
            let playlist = try tx.create(Into<Playlist>()) { $0.tracks = Array(tracks[0..<3]) }.id
            return (playlist, tracks)
        }
        #expect(try await positions(stack, playlist) == [0, 1, 2])
        // Gaps, as a list has after members left it: the positions before a change stay as they are.
        try await stack.perform { tx in
            for (offset, track) in tracks[0..<3].enumerated() {
                try tx.connection.execute(
                    "UPDATE Playlist_tracks SET source_position = ? WHERE source = ? AND target = ?",
                    [.integer(Int64(offset + 1) * 10), .integer(playlist.rawValue), .integer(track.rawValue)])
            }
        }
        try await stack.perform { tx in _ = try tx.edit(playlist) { $0.tracks.append(tracks[3]) } }
        // Before, every member was numbered anew (0, 1, 2, 3): appending to n members wrote n positions.
        #expect(try await positions(stack, playlist) == [10, 20, 30, 31])
        // Near the front: the three members after the change keep theirs, the two before go below them.
        try await stack.perform { tx in _ = try tx.edit(playlist) { $0.tracks.insert(tracks[4], at: 1) } }
        #expect(try await positions(stack, playlist) == [18, 19, 20, 30, 31])
        #expect(try await stack.fetchExisting(playlist)?.tracks == [tracks[0], tracks[4], tracks[1], tracks[2], tracks[3]])
        try await stack.perform { tx in _ = try tx.edit(playlist) { $0.tracks.removeLast(2) } }
        #expect(try await positions(stack, playlist) == [18, 19, 20])
        try await stack.perform { tx in _ = try tx.edit(playlist) { $0.tracks.reverse() } }
        #expect(try await stack.fetchExisting(playlist)?.tracks == [tracks[1], tracks[4], tracks[0]])
        #expect(try await positions(stack, playlist) == [0, 1, 2])
        // A prepend goes below the first position, below 0 too.
        try await stack.perform { tx in _ = try tx.edit(playlist) { $0.tracks.insert(tracks[2], at: 0) } }
        #expect(try await positions(stack, playlist) == [-1, 0, 1, 2])
        #expect(try await stack.fetchExisting(playlist)?.tracks == [tracks[2], tracks[1], tracks[4], tracks[0]])
    }

    @Test("random edits of ordered lists, stored in a foreign key and in a join table ordered on both sides, read back as edited")
    func randomEdits() async throws {
        let (stack, _) = try await makeStack(schema: schema)
        var random = SeededGenerator(state: 2026)
        let (shelf, volumes, playlists, tracks) = try await stack.perform { tx in
            let shelf = try tx.create(Into<Shelf>()).id
            let volumes = try (0..<12).map { index in try tx.create(Into<Volume>()) { $0.title = "V\(index)" }.id }
            let playlists = try (0..<3).map { index in try tx.create(Into<Playlist>()) { $0.name = "P\(index)" }.id }
            let tracks = try (0..<12).map { index in try tx.create(Into<Track>()) { $0.title = "T\(index)" }.id }
            return (shelf, volumes, playlists, tracks)
        }
        var shelved: [Volume.ID] = []
        var lists: [Playlist.ID: [Track.ID]] = [:]
        // A track's playlists, in the order the track joined them (Track.playlists is ordered too).
        var joined: [Track.ID: [Playlist.ID]] = [:]
        for step in 0..<150 {
            shelved = Self.randomEdit(shelved, pool: volumes, using: &random)
            let playlist = playlists[Int.random(in: 0..<playlists.count, using: &random)]
            let before = lists[playlist] ?? []
            let after = Self.randomEdit(before, pool: tracks, using: &random)
            lists[playlist] = after
            for track in before where !after.contains(track) { joined[track]?.removeAll { $0 == playlist } }
            for track in after where !before.contains(track) { joined[track, default: []].append(playlist) }
            let (wantedShelf, wantedTracks) = (shelved, after)
            try await stack.perform { tx in
                _ = try tx.edit(shelf) { $0.volumes = wantedShelf }
                _ = try tx.edit(playlist) { $0.tracks = wantedTracks }
            }
            #expect(try await stack.fetchExisting(shelf)?.volumes == shelved, "step \(step)")
            #expect(try await stack.fetchExisting(playlist)?.tracks == after, "step \(step)")
            for track in tracks {
                #expect(try await stack.fetchExisting(track)?.playlists == joined[track] ?? [], "step \(step)")
            }
        }
    }

    /// One random edit of an ordered list of distinct members: an append, an insertion, a removal, a
    /// move, a swap, a reversal or a new list.
    static func randomEdit<T: Equatable>(_ list: [T], pool: [T], using random: inout SeededGenerator) -> [T] {
        var list = list
        let absent = pool.filter { !list.contains($0) }
        switch Int.random(in: 0..<7, using: &random) {
        case 0 where !absent.isEmpty:
            list.append(absent.randomElement(using: &random)!)
        case 1 where !absent.isEmpty:
            list.insert(absent.randomElement(using: &random)!, at: Int.random(in: 0...list.count, using: &random))
        case 2 where !list.isEmpty:
            list.remove(at: Int.random(in: 0..<list.count, using: &random))
        case 3 where list.count > 1:
            let member = list.remove(at: Int.random(in: 0..<list.count, using: &random))
            list.insert(member, at: Int.random(in: 0...list.count, using: &random))
        case 4 where list.count > 1:
            list.swapAt(Int.random(in: 0..<list.count, using: &random), Int.random(in: 0..<list.count, using: &random))
        case 5:
            list.reverse()
        default:
            list = Array(pool.shuffled(using: &random).prefix(Int.random(in: 0...pool.count, using: &random)))
        }
        return list
    }

    @Test("a many-to-many ordered on both sides finds a list's end through an index, in new and in older stores")
    func positionIndexes() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("playlists.sqlite")
        let indexes = "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema WHERE type = 'index' "
            + "AND tbl_name = 'Playlist_tracks' ORDER BY name)"
        let wanted = "Playlist_tracks_source_position_index Playlist_tracks_target_index Playlist_tracks_target_position_index"
        var stack = try await DataStack(schema, storage: SQLiteStore(path: path))
        let (playlist, track) = try await stack.perform { tx in
            let track = try tx.create(Into<Track>()) { $0.title = "T" }.id
            return (try tx.create(Into<Playlist>()) { $0.tracks = [track] }.id, track)
        }
        await stack.close()
        #expect(try storeValue(path, indexes) == wanted)
        // Putting a playlist last in a track's list, and a track last in a playlist's, read one index entry;
        // before, every link of the track (or of the playlist) was read for the largest position.
        let lastOfTrack = "EXPLAIN QUERY PLAN SELECT coalesce(max(target_position) + 1, 0) FROM Playlist_tracks WHERE target = 1"
        let lastOfPlaylist = "EXPLAIN QUERY PLAN SELECT coalesce(max(source_position) + 1, 0) FROM Playlist_tracks WHERE source = 1"
        #expect(try queryPlan(path, lastOfTrack).contains("COVERING INDEX Playlist_tracks_target_position_index"))
        #expect(try queryPlan(path, lastOfPlaylist).contains("COVERING INDEX Playlist_tracks_source_position_index"))
        // A set keeps the one index it had: Reader.volumes and Volume.readers are not ordered.
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Reader_volumes'") == "1")
        // A store made by an earlier Strata, without them: opening it makes them.
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            defer { connection.close() }
            try connection.execute("DROP INDEX Playlist_tracks_source_position_index")
            try connection.execute("DROP INDEX Playlist_tracks_target_position_index")
        }
        #expect(try storeValue(path, indexes) == "Playlist_tracks_target_index")
        stack = try await DataStack(schema, storage: SQLiteStore(path: path))
        #expect(try await stack.fetchExisting(playlist)?.tracks == [track])
        await stack.close()
        #expect(try storeValue(path, indexes) == wanted)
    }
}
