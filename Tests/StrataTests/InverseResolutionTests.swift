import Testing
@testable import Strata

// An owner and a vet both list pets; only the owner's list is the inverse of Pet.owner.

@Entity
struct InverseOwner {
    var name: String = ""
    @Relationship var pets: Set<InversePet.ID> = []
}

@Entity
struct InverseVet {
    var name: String = ""
    @Relationship var pets: Set<InversePet.ID> = []   // one way: no inverse
}

@Entity
struct InversePet {
    var name: String = ""
    @Relationship(inverse: \InverseOwner.pets) var owner: InverseOwner.ID?
}

/// Declares as its inverse a to-one of the pet that points to the owner, not here.
@Entity
struct InverseClinic {
    @Relationship(inverse: \InversePet.owner) var pets: Set<InversePet.ID> = []
}

/// A to-one whose declared inverse is the vet's list, which points to pets, not here.
@Entity
struct InverseBadge {
    @Relationship(inverse: \InverseVet.pets) var vet: InverseVet.ID?
}

/// Version 2 of the owner, vet and pet: the vet's one-way `pets` renamed to `patients`.
enum InverseV2 {
    @Entity(name: "InverseOwner")
    struct Owner {
        var name: String = ""
        @Relationship var pets: Set<Pet.ID> = []
    }

    @Entity(name: "InverseVet")
    struct Vet {
        var name: String = ""
        @Relationship(renamedFrom: "pets") var patients: Set<Pet.ID> = []
    }

    @Entity(name: "InversePet")
    struct Pet {
        var name: String = ""
        @Relationship(inverse: \Owner.pets) var owner: Owner.ID?
    }
}

@Suite("Inverse resolution")
struct InverseResolutionTests {
    @Test("a to-many without an inverse never takes a to-one that points to another entity for its inverse")
    func oneWayToManyBesideAnotherEntitysInverse() async throws {
        let stack = try await DataStack(Schema("V1", InverseOwner.self, InverseVet.self, InversePet.self))
        let (owner, vet, pet) = try await stack.perform { tx in
            let owner = try tx.create(Into<InverseOwner>()) { $0.name = "Ann" }
            let pet = try tx.create(Into<InversePet>()) { $0.name = "Rex" }
            let vet = try tx.create(Into<InverseVet>()) { $0.pets = [pet.id] }
            return (owner.id, vet.id, pet.id)
        }
        #expect(try await stack.fetchExisting(pet)?.owner == nil)
        #expect(try await stack.fetchExisting(owner)?.pets == [])
        #expect(try await stack.fetchExisting(vet)?.pets == [pet])
        try await stack.perform { tx in
            guard let rex = try tx.fetchExisting(pet) else { return }
            _ = try tx.edit(rex) { $0.owner = owner }
        }
        #expect(try await stack.fetchExisting(owner)?.pets == [pet])
        #expect(try await stack.fetchExisting(vet)?.pets == [pet])
        await stack.close()
    }

    @Test("a declared inverse that points to another entity is refused, or ignored with a warning for a to-one")
    func declaredInverseMustPointBack() async throws {
        let error = await expectStrataError(.invalidArgument) {
            try await DataStack(Schema("V1", InverseOwner.self, InversePet.self, InverseClinic.self))
        }
        #expect(error?.message.contains("InversePet.owner points to InverseOwner, not to InverseClinic") == true,
                "\(String(describing: error))")
        let schema = Schema("V1", InverseVet.self, InversePet.self, InverseOwner.self, InverseBadge.self)
        #expect(schema.warnings.contains { $0.contains("InverseBadge.vet: its inverse InverseVet.pets points to InversePet") },
                "\(schema.warnings)")
    }

    @Test("a store made when the one-way to-many had no join table opens, and the relationship works from empty")
    func storeWithoutTheJoinTableOpens() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pets.sqlite")
        let schema = Schema("V1", InverseOwner.self, InverseVet.self, InversePet.self)
        var stack = try await DataStack(schema, storage: SQLiteStore(path: path))
        await stack.close()
        // The layout an older version made: no join table for the vet's pets.
        let connection = try Connection(path: path, options: Connection.Options())
        try connection.execute("DROP TABLE \"InverseVet_pets\"")
        connection.close()
        stack = try await DataStack(schema, storage: SQLiteStore(path: path))
        let (vet, pet) = try await stack.perform { tx in
            let pet = try tx.create(Into<InversePet>()) { $0.name = "Rex" }
            let vet = try tx.create(Into<InverseVet>()) { $0.pets = [pet.id] }
            return (vet.id, pet.id)
        }
        #expect(try await stack.fetchExisting(vet)?.pets == [pet])
        #expect(try await stack.fetchExisting(pet)?.owner == nil)
        await stack.close()
    }

    @Test("a store made when the one-way to-many had no join table migrates, and the renamed relationship works")
    func storeWithoutTheJoinTableMigrates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pets.sqlite")
        let v1 = Schema("V1", InverseOwner.self, InverseVet.self, InversePet.self)
        let v2 = Schema("V2", InverseV2.Owner.self, InverseV2.Vet.self, InverseV2.Pet.self)
        let old = try await DataStack(v1, storage: SQLiteStore(path: path))
        await old.close()
        let connection = try Connection(path: path, options: Connection.Options())
        try connection.execute("DROP TABLE \"InverseVet_pets\"")
        connection.close()
        let stack = try await DataStack(SchemaHistory(v1, v2), storage: SQLiteStore(path: path))
        let vet = try await stack.perform { tx in
            let pet = try tx.create(Into<InverseV2.Pet>()) { $0.name = "Rex" }
            return try tx.create(Into<InverseV2.Vet>()) { $0.patients = [pet.id] }.id
        }
        #expect(try await stack.fetchExisting(vet)?.patients.count == 1)
        await stack.close()
    }
}
