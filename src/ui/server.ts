import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import { HttpMiddleware, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Console, Effect } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { GraphStore } from "../services/GraphStore.js"
import { UiServerError } from "./errors.js"
import { checkRequest, cookieName, type Guard } from "./guard.js"
import { deniedHtml, pageHtml, script, style, type Asset } from "./page.js"
import { apiRouter } from "./routes.js"
import { makeUiStores } from "./stores.js"

export interface UiOptions {
  /** 0 picks a free port. */
  readonly port: number
  /** Open the URL in the default browser. */
  readonly open: boolean
  readonly json: boolean
}

// Set on every answer: nothing is cached or framed (a delete button must not be clickjacked), the page
// runs only its own script, and the secret never leaves in a Referer.
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store"
} as const

const assetResponse = (a: Asset) => HttpServerResponse.text(a.body, { contentType: a.contentType })
const ASSETS = new Set(["/app.js", "/app.css"])

const guarded = (guard: Guard) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function* () {
      const req = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(req.url, "http://127.0.0.1")
      const verdict = checkRequest(guard, {
        method: req.method,
        path: url.pathname,
        search: url.searchParams,
        headers: req.headers,
        cookies: req.cookies
      })
      const answer =
        verdict._tag === "login"
          ? HttpServerResponse.empty({ status: 303, headers: { location: "/" } }).pipe(
              HttpServerResponse.unsafeSetCookie(cookieName(guard.port), guard.secret, { httpOnly: true, sameSite: "strict", path: "/" })
            )
          : verdict._tag === "deny"
            ? url.pathname.startsWith("/api/")
              ? yield* HttpServerResponse.json({ error: verdict.message }, { status: verdict.status }).pipe(Effect.orDie)
              : HttpServerResponse.html(deniedHtml(verdict.message)).pipe(HttpServerResponse.setStatus(verdict.status))
            : yield* app
      const secured = HttpServerResponse.setHeaders(answer, SECURITY_HEADERS)
      // The page asks for its script and style by content hash: a cached copy is always the right one.
      return verdict._tag === "allow" && ASSETS.has(url.pathname)
        ? HttpServerResponse.setHeader(secured, "cache-control", "private, max-age=86400, immutable")
        : secured
    })
  )

const listenError = (port: number) => (e: { readonly cause?: unknown }) => {
  const code = (e.cause as NodeJS.ErrnoException | undefined)?.code
  return new UiServerError({
    message:
      code === "EADDRINUSE"
        ? `port ${port} on 127.0.0.1 is in use; choose another --port, or leave it out for a free one`
        : code === "EACCES"
          ? `port ${port} needs privileges this user does not have; choose a port above 1023`
          : `could not listen on 127.0.0.1:${port} (${code ?? "unknown error"})`
  })
}

/** Opens a URL in the desktop's browser; a machine without one gets a line on stderr. */
const openBrowser = (url: string) =>
  Effect.sync(() => {
    const [cmd, args] =
      process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", '""', url]] : ["xdg-open", [url]]
    const child = spawn(cmd as string, args as Array<string>, { detached: true, stdio: "ignore" })
    child.on("error", () => process.stderr.write(`awhm: could not start ${cmd} to open a browser; open the address above yourself\n`))
    child.unref()
  })

/**
 * `awhm ui`: serves the viewer on 127.0.0.1 until interrupted, printing its address (with this run's
 * secret). Reads and writes the data dir through the same programs and services as the CLI.
 */
export const serveUi = (config: AwhmConfigShape, options: UiOptions) =>
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "TcpAddress" ? server.address.port : options.port
    const guard: Guard = { port, secret: randomBytes(24).toString("base64url"), csrf: randomBytes(24).toString("base64url") }
    const stores = yield* makeUiStores(config)
    const router = apiRouter(stores).pipe(
      HttpRouter.get("/", Effect.succeed(HttpServerResponse.html(pageHtml(guard.csrf)))),
      HttpRouter.get("/app.js", Effect.succeed(assetResponse(script))),
      HttpRouter.get("/app.css", Effect.succeed(assetResponse(style)))
    )
    yield* HttpServer.serveEffect(guarded(guard)(router))
    const url = `http://127.0.0.1:${port}/?s=${guard.secret}`
    yield* options.json
      ? Console.log(JSON.stringify({ url, port, dataDir: config.dataDir }))
      : Console.log(`awhm ui: serving ${config.dataDir}\nopen ${url}\n(Ctrl-C stops it)`)
    if (options.open) yield* openBrowser(url)
    // The graph is opened and read while the browser loads the page, which asks for it first.
    yield* Effect.forkScoped(Effect.ignore(stores.run(Effect.flatMap(GraphStore, (g) => g.load({ withEmbeddings: false })))))
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    Effect.provide(NodeHttpServer.layer(() => http.createServer(), { port: options.port, host: "127.0.0.1" })),
    Effect.catchTag("ServeError", (e) => Effect.fail(listenError(options.port)(e)))
  )
