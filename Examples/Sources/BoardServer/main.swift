import Board
import Strata

print("board-server: not built yet", boardSchema.version)
