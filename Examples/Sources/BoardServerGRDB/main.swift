print("board-server-grdb: not built yet")
