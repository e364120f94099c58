print("board-load: not built yet")
