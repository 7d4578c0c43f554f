import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A session's settled mark ("stamp@index", see store/consolidatedLogs.ts) beside its progress: a full
 * consolidation run skips the sessions whose log stamp and progress index still match it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE awhm.consolidation_progress ADD COLUMN log_mark TEXT`
})
