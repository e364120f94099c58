import Testing
@testable import Strata

// Two versions of a recipe and its ingredients, each in its own namespace.
enum MixV1 {
    @Entity(name: "Recipe")
    struct Recipe {
        var title: String = ""
        @Relationship(inverse: \Ingredient.recipe) var ingredients: Set<Ingredient.ID> = []
    }

    @Entity(name: "Ingredient")
    struct Ingredient {
        var name: String = ""
        @Relationship var recipe: Recipe.ID?
    }
}

enum MixV2 {
    @Entity(name: "Recipe")
    struct Recipe {
        var title: String = ""
        var minutes: Int = 0
        @Relationship(inverse: \MixV1.Ingredient.recipe) var ingredients: Set<MixV1.Ingredient.ID> = []
    }
}

@Entity
struct MixRecipe {
    var title: String = ""
}

/// Holds a recipe's ID in a plain field, not a relationship.
@Entity
struct MixSearchHit {
    var query: String = ""
    var recipe: MixRecipe.ID?
}

@Suite("Messages for schema and query mistakes")
struct QueryMessageTests {
    @Test("a schema that reuses another version's entity type names both Swift types")
    func otherVersionsEntityType() async {
        let error = await expectStrataError(.invalidArgument) {
            try await DataStack(Schema("V2", MixV2.Recipe.self, MixV1.Ingredient.self))
        }
        let message = error?.message ?? ""
        #expect(message.contains("Ingredient.recipe points to MixV1.Recipe"), "\(message)")
        #expect(message.contains("the schema's Recipe is MixV2.Recipe, a different Swift type"), "\(message)")
        #expect(message.contains("Each version's namespace must hold its own copy of every related entity"), "\(message)")
        #expect(!message.contains("add Recipe to the Schema"), "\(message)")
    }

    @Test("a key path through a plain ID field says that it is not a relationship")
    func pathThroughPlainIDField() async throws {
        let stack = try await DataStack(Schema("V1", MixRecipe.self, MixSearchHit.self))
        let error = await expectStrataError(.unsupportedQuery) {
            try await stack.fetchAll(From<MixSearchHit>().where(\.recipe?.title == "Soup"))
        }
        let message = error?.message ?? ""
        #expect(message.contains("MixSearchHit.recipe, an ID field (MixRecipe.ID), not a @Relationship"), "\(message)")
        #expect(message.contains("mark it @Relationship"), "\(message)")
        #expect(error?.field == "recipe")
        let sort = await expectStrataError(.unsupportedQuery) {
            try await stack.fetchAll(From<MixSearchHit>().orderBy(.ascending(\.recipe?.title)))
        }
        #expect(sort?.message.contains("not a @Relationship") == true, "\(String(describing: sort))")
        await stack.close()
    }
}
