import CSQLiteBench
import GRDB
import Strata
print(sqlite3_libversion_number())
