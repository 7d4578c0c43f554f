import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, ParseResult, Schema } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { parseAsOf } from "../domain/input.js"
import { previewDeletion } from "../programs/deletionPreview.js"
import { hardDelete } from "../programs/hardDelete.js"
import { findNodes, nodeNeighbourhood } from "../programs/neighbourhood.js"
import { retrieve } from "../programs/retrieve.js"
import { listSessions, sessionLog } from "../programs/sessionView.js"
import { listSlots, slotHistory } from "../programs/slots.js"
import { createSnapshot, listSnapshots, restoreSnapshot } from "../programs/snapshot.js"
import { AppConfig } from "../services/AppConfig.js"
import { uiStatus } from "./status.js"
import type { UiStores } from "./stores.js"

// The viewer's JSON API: one route per view, each a program the CLI also runs, over the same services.

const MAX_PAGE = 200

const count = (fallback: number, max: number) =>
  Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, max)), { default: () => fallback })
const text = Schema.optionalWith(Schema.String.pipe(Schema.maxLength(2_000)), { default: () => "" })
const flag = Schema.optionalWith(Schema.Literal("1", "0"), { default: () => "0" as const })
const paging = { offset: count(0, 1_000_000_000), limit: count(50, MAX_PAGE) }

/** The first problem of a bad request, as one line (parameter name and what was expected). */
const badRequest = (e: ParseResult.ParseError) => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
  return new InvalidInput({ message: issue === undefined ? "bad request" : `${issue.path.join(".") || "request"}: ${issue.message}` })
}

const params = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(schema: Schema.Schema<A, I>) =>
  HttpServerRequest.schemaSearchParams(schema).pipe(Effect.mapError(badRequest))

const body = <A, I>(schema: Schema.Schema<A, I>) =>
  HttpServerRequest.schemaBodyJson(schema).pipe(
    Effect.mapError((e) => (e._tag === "ParseError" ? badRequest(e) : new InvalidInput({ message: "the request body is not JSON" })))
  )

const STATUS: Record<string, number> = { InvalidInput: 400, ConfigurationError: 400, NodeNotFound: 404 }

/** Every failure as `{"error": one line}`; messages of this project's errors never carry memory content. */
const respond = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.flatMap((value) => HttpServerResponse.json(value)),
    Effect.catchAll((e: unknown) => {
      const tag = typeof e === "object" && e !== null && "_tag" in e ? String(e._tag) : ""
      const message = typeof e === "object" && e !== null && "message" in e && typeof e.message === "string" && e.message !== "" ? e.message : "internal error"
      return HttpServerResponse.json({ error: message.split("\n")[0] }, { status: STATUS[tag] ?? 500 }).pipe(Effect.orDie)
    })
  )

const SearchParams = Schema.Struct({
  q: text,
  k: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))),
  history: flag,
  asOf: text,
  lexical: flag,
  session: text
})

/** The API routes over the viewer's stores. */
export const apiRouter = (stores: UiStores) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/api/status", respond(stores.run(uiStatus))),
    HttpRouter.get(
      "/api/search",
      respond(
        Effect.gen(function* () {
          const p = yield* params(SearchParams)
          const asOf = yield* parseAsOf(p.asOf === "" ? null : p.asOf, "as of")
          if (p.q.trim() === "") return { results: [] }
          return yield* stores.run(
            Effect.gen(function* () {
              const config = yield* AppConfig
              const results = yield* retrieve(p.q, {
                ...(p.k === undefined ? {} : { k: p.k }),
                includeHistory: p.history === "1" || config.includeHistoryByDefault,
                trace: true,
                asOf,
                sessionId: p.session === "" ? null : p.session,
                lexicalOnly: p.lexical === "1"
              })
              return { results }
            })
          )
        })
      )
    ),
    HttpRouter.get(
      "/api/slots",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ q: text, asOf: text, ...paging }))
          const asOf = yield* parseAsOf(p.asOf === "" ? null : p.asOf, "as of")
          return yield* stores.run(listSlots({ text: p.q, asOf, offset: p.offset, limit: p.limit }))
        })
      )
    ),
    HttpRouter.get(
      "/api/slot",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ key: Schema.String, scope: Schema.optional(Schema.String) }))
          return yield* stores.run(slotHistory(p.key, p.scope ?? null))
        })
      )
    ),
    HttpRouter.get(
      "/api/nodes",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ q: text, status: Schema.optional(Schema.Literal("active", "superseded", "retracted")), ...paging }))
          return yield* stores.run(findNodes({ text: p.q, status: p.status ?? null, offset: p.offset, limit: p.limit }))
        })
      )
    ),
    HttpRouter.get(
      "/api/node",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ id: Schema.String, ...paging }))
          return yield* stores.run(nodeNeighbourhood(p.id, p))
        })
      )
    ),
    HttpRouter.get(
      "/api/sessions",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ q: text, ...paging }))
          return yield* stores.run(listSessions({ text: p.q, offset: p.offset, limit: p.limit }))
        })
      )
    ),
    HttpRouter.get(
      "/api/session",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ id: Schema.String, at: Schema.optional(Schema.NumberFromString.pipe(Schema.int())), ...paging }))
          return yield* stores.run(sessionLog(p.id, { offset: p.offset, limit: p.limit, at: p.at ?? null }))
        })
      )
    ),
    HttpRouter.get(
      "/api/delete-preview",
      respond(
        Effect.gen(function* () {
          const p = yield* params(Schema.Struct({ id: Schema.String, keepSiblings: flag }))
          return yield* stores.run(previewDeletion(p.id, { keepSiblings: p.keepSiblings === "1" }))
        })
      )
    ),
    HttpRouter.post(
      "/api/delete",
      respond(
        Effect.gen(function* () {
          const b = yield* body(Schema.Struct({ id: Schema.String, keepSiblings: Schema.optionalWith(Schema.Boolean, { default: () => false }) }))
          // The same program as `awhm delete`, with the same stores.
          return yield* stores.exclusive(hardDelete(b.id, b.keepSiblings ? { keepSiblings: true } : {}))
        })
      )
    ),
    HttpRouter.get("/api/snapshots", respond(stores.run(Effect.map(listSnapshots(), (snapshots) => ({ snapshots }))))),
    HttpRouter.post("/api/snapshots", respond(stores.exclusive(Effect.map(createSnapshot(), (s) => ({ path: s.path }))))),
    HttpRouter.post(
      "/api/snapshots/restore",
      respond(
        Effect.gen(function* () {
          const b = yield* body(Schema.Struct({ path: Schema.String }))
          return yield* stores.exclusive(
            Effect.gen(function* () {
              // Only this data dir's own snapshots: the page cannot name an arbitrary file.
              const known = (yield* listSnapshots()).some((s) => s.path === b.path)
              if (!known) return yield* new InvalidInput({ message: "not a snapshot of this data dir (see the list)" })
              const r = yield* restoreSnapshot(b.path)
              return { restored: r.restored, backup: r.backup }
            })
          )
        })
      )
    ),
    // Consolidation brings the NLP libraries: loaded when first asked for, not at start-up.
    HttpRouter.post(
      "/api/consolidate",
      respond(Effect.flatMap(Effect.promise(() => import("../programs/consolidate.js")), ({ consolidatePending }) => stores.run(consolidatePending({}))))
    )
  )
