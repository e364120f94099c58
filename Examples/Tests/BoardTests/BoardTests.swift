import Testing
import Strata
@testable import Board

@Test func schemaHasTwoEntities() { #expect(boardSchema.entities.count == 2) }
