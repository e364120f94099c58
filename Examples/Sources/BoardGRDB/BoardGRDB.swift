// The GRDB twin of the board service (load benchmark only): written by the load work.
