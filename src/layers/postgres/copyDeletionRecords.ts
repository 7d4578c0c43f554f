import { Effect } from "effect"
import type { DeletionRecordsShape } from "../../services/DeletionRecords.js"
import { parseRecords } from "../../store/tombstones.js"

/**
 * Copies the tombstones and ledger records of one store into another (`awhm migrate`, both ways), by id:
 * what the target keeps is left as it is. Returns how many tombstones the source keeps.
 */
export const copyDeletionRecords = (from: DeletionRecordsShape, to: DeletionRecordsShape, onProgress: (line: string) => void) =>
  Effect.gen(function* () {
    const lines = yield* from.lines
    yield* to.copyIn(lines)
    const tombstones = parseRecords<{ tombstone_id: unknown }>(lines.tombstones, (r) => r.tombstone_id).length
    const ledger = parseRecords<{ record_id: unknown }>(lines.ledger, (r) => r.record_id).length
    onProgress(`deletion records: ${tombstones} tombstones, ${ledger} ledger records`)
    return tombstones
  })
