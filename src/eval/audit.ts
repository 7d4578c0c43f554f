import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { dataPaths } from "../store/paths.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { Retriever } from "../services/Retriever.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { consolidateSession } from "../programs/consolidate.js"
import { hardDelete } from "../programs/hardDelete.js"
import { logMessage } from "../programs/logMessage.js"
import { createSnapshot } from "../programs/snapshot.js"
import type { DeletionAudit } from "./report.js"

const AUDIT_SESSION = "privacy"

/** Files under `dir` (relative, sorted) whose bytes contain `secret`, case-insensitively. */
export const scanDataDir = (dir: string, secret: string): Array<string> => {
  const needle = secret.toLowerCase()
  const hits: Array<string> = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile() && fs.readFileSync(p).toString("latin1").toLowerCase().includes(needle)) {
        hits.push(path.relative(dir, p))
      }
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return hits.sort()
}

/**
 * The reference's deletion audit: log a secret, consolidate, snapshot, hard-delete the node holding it,
 * query it with history, and check the logs, the snapshots and the results. Beyond the reference it also
 * scans every file of the data directory the moment delete returns (WAL, graph file, tombstones…).
 */
export const runDeletionAudit = Effect.fn("eval.deletionAudit")(function* (secret: string, k: number) {
  const config = yield* AppConfig
  const store = yield* GraphStore
  const buffer = yield* SessionBuffer
  const rawLog = yield* RawLog
  const retriever = yield* Retriever
  const paths = dataPaths(config.dataDir)

  yield* logMessage({ sessionId: AUDIT_SESSION, role: "user", content: `My token is ${secret}` })
  yield* consolidateSession(AUDIT_SESSION)
  yield* createSnapshot()

  const graph = yield* store.load({ withEmbeddings: false })
  const target = [...graph.nodes.values()].find((n) => n.content.toLowerCase().includes(secret))
  if (target === undefined) {
    yield* buffer.clear(AUDIT_SESSION)
    return { passed: false, reason: "secret_node_not_found" } satisfies DeletionAudit as DeletionAudit
  }

  const { result: deletion } = yield* hardDelete(target.id)
  const filesAtDelete = scanDataDir(config.dataDir, secret)
  const post = yield* retriever.retrieve(secret, { k, includeHistory: true, sessionId: AUDIT_SESSION })
  yield* buffer.clear(AUDIT_SESSION)

  let logsClean = true
  for (const s of yield* rawLog.sessions) {
    if ((yield* rawLog.read(s.sessionId)).some((e) => e.content.toLowerCase().includes(secret))) logsClean = false
  }
  const snapshotsClean = scanDataDir(paths.snapshots, secret).length === 0
  const queryClean = !post.some((r) => r.content.toLowerCase().includes(secret))
  return {
    passed: logsClean && snapshotsClean && queryClean && filesAtDelete.length === 0,
    logs_clean: logsClean,
    snapshots_clean: snapshotsClean,
    query_clean: queryClean,
    files_clean: filesAtDelete.length === 0,
    files_with_secret: filesAtDelete,
    deletion_result: {
      node_deleted: deletion.nodeDeleted,
      snapshots_touched: deletion.snapshotsTouched,
      tombstone_id: deletion.tombstoneId,
      ledger_record_id: deletion.ledgerRecordId
    }
  } satisfies DeletionAudit as DeletionAudit
})

/** Adds what a scan after the stores closed found to the audit (the files a user is left with). */
export const withFinalScan = (audit: DeletionAudit, leftovers: ReadonlyArray<string>): DeletionAudit => {
  if (audit.reason !== undefined) return audit
  const files = [...new Set([...(audit.files_with_secret ?? []), ...leftovers])].sort()
  return { ...audit, passed: audit.passed && files.length === 0, files_clean: files.length === 0, files_with_secret: files }
}
