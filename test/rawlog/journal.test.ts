import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLog } from "../../src/services/RawLog.js"
import { scopedTempDir } from "../support/cli.js"

const withLog = <A, E>(f: (log: typeof RawLog.Service, dir: string) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir()
    return yield* Effect.flatMap(RawLog, (log) => f(log, dir)).pipe(Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir)))))
  })

describe("the raw log's change journal", () => {
  it.scoped("names the sessions appends changed since a reader's mark, once each", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        yield* log.append({ sessionId: "a", role: "user", content: "one" })
        yield* log.append({ sessionId: "b", role: "user", content: "two" })
        const first = yield* log.changesSince(null)
        expect(first.sessions).toBeNull() // no mark yet: list every session
        expect((yield* log.changesSince(first.mark)).sessions).toEqual([])
        yield* log.append({ sessionId: "a", role: "user", content: "three" })
        yield* log.append({ sessionId: "a", role: "user", content: "four" })
        const next = yield* log.changesSince(first.mark)
        expect(next.sessions).toEqual(["a"])
        // A removal rewrites the log (a new file renamed into the logs folder): every session is listed once.
        yield* log.removeEntries("b", new Set([0]))
        const after = yield* log.changesSince(next.mark)
        expect(after.sessions).toBeNull()
        expect(after.named).toEqual(["b"]) // what the journal did record, for a reader that lists the rest later
        expect((yield* log.changesSince(after.mark)).sessions).toEqual([])
        // The journal holds session ids (and the logs folder's stamps where an append created a log), never what was said.
        const lines = fs.readFileSync(path.join(dir, "meta", "log-changes"), "utf8").split("\n").slice(1)
        expect(lines.map((l) => (l.startsWith('{"folder":[') ? "step" : l))).toEqual(['"a"', "step", '"b"', "step", '"a"', '"a"', '"b"', ""])
      })
    )
  )

  it.scoped("vouches for the logs its own appends created, so a new session's first message lists no other log", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        yield* log.append({ sessionId: "a", role: "user", content: "one" })
        const mark = (yield* log.changesSince(null)).mark
        yield* log.append({ sessionId: "b", role: "user", content: "two" })
        yield* log.append({ sessionId: "c", role: "user", content: "three" })
        yield* log.append({ sessionId: "b", role: "user", content: "four" })
        const next = yield* log.changesSince(mark)
        expect(next.sessions).toEqual(["b", "c"])
        expect((yield* log.changesSince(next.mark)).sessions).toEqual([])
        // A log another program created between two of awhm's: the steps no longer lead to the folder as it is.
        yield* log.append({ sessionId: "d", role: "user", content: "five" })
        fs.writeFileSync(path.join(dir, "logs", "e.jsonl"), "")
        yield* log.append({ sessionId: "f", role: "user", content: "six" })
        const foreign = yield* log.changesSince(next.mark)
        expect(foreign.sessions).toBeNull()
        expect(foreign.named).toEqual(["d", "f"])
      })
    )
  )

  it.scoped("cannot vouch for a new or removed log, a replaced journal or a half-written line: then every session is listed", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        // Before any write there is no journal: a reader still knows that nothing changed.
        fs.mkdirSync(path.join(dir, "logs"))
        const empty = yield* log.changesSince(null)
        expect(empty.sessions).toBeNull()
        expect((yield* log.changesSince(empty.mark)).sessions).toEqual([])
        yield* log.append({ sessionId: "a", role: "user", content: "one" })
        expect((yield* log.changesSince(empty.mark)).sessions).toBeNull() // the journal was created
        const mark = (yield* log.changesSince(null)).mark
        // A log another program created: the logs folder changed.
        fs.writeFileSync(path.join(dir, "logs", "c.jsonl"), "")
        const folder = yield* log.changesSince(mark)
        expect(folder.sessions).toBeNull()
        expect(folder.named).toEqual([])
        expect((yield* log.changesSince(folder.mark)).sessions).toEqual([])
        // A journal replaced by another (removed and written again, or rotated): a new id.
        const journal = path.join(dir, "meta", "log-changes")
        fs.rmSync(journal)
        yield* log.append({ sessionId: "a", role: "user", content: "two" })
        const replaced = yield* log.changesSince(folder.mark)
        expect(replaced.sessions).toBeNull()
        expect(replaced.named).toBeUndefined() // a new journal names nothing a reader could rely on
        // A line still being written is read once it is whole.
        fs.appendFileSync(journal, '"a')
        const half = yield* log.changesSince(replaced.mark)
        expect(half.sessions).toEqual([])
        fs.appendFileSync(journal, '"\n')
        expect((yield* log.changesSince(half.mark)).sessions).toEqual(["a"])
        expect((yield* log.session("a"))?.sessionId).toBe("a")
        expect(yield* log.session("nobody")).toBeNull()
      })
    )
  )
})
