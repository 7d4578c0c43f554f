import { createHash, timingSafeEqual } from "node:crypto"

// Who may talk to the viewer: it listens on 127.0.0.1 only, and every request must carry the run's
// secret (the cookie the printed URL sets, or `Authorization: Bearer`). API calls from the page also
// carry the CSRF token it was served with, and state-changing ones must come from the page's own
// origin. Another site in the same browser (even one on 127.0.0.1) can neither read nor change anything.

export interface Guard {
  readonly port: number
  readonly secret: string
  readonly csrf: string
}

export interface GuardedRequest {
  readonly method: string
  readonly path: string
  readonly search: URLSearchParams
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly cookies: Readonly<Record<string, string | undefined>>
}

export type Verdict =
  | { readonly _tag: "allow" }
  /** The printed URL: set the cookie and send the browser on to the clean address. */
  | { readonly _tag: "login" }
  | { readonly _tag: "deny"; readonly status: 401 | 403; readonly message: string }

/** The cookie's name carries the port: two viewers on one machine keep their own. */
export const cookieName = (port: number): string => `awhm_ui_${port}`

const digest = (s: string) => createHash("sha256").update(s).digest()

/** Constant-time comparison (the lengths leak nothing either: both sides are hashed first). */
export const sameSecret = (given: string | undefined, expected: string): boolean =>
  given !== undefined && timingSafeEqual(digest(given), digest(expected))

const SAFE = new Set(["GET", "HEAD"])

const deny = (status: 401 | 403, message: string): Verdict => ({ _tag: "deny", status, message })

/** Decides one request. */
export const checkRequest = (guard: Guard, req: GuardedRequest): Verdict => {
  const host = req.headers.host
  // A page on another name that resolves here (DNS rebinding) arrives with its own Host.
  if (host !== `127.0.0.1:${guard.port}` && host !== `localhost:${guard.port}`) {
    return deny(403, `this viewer answers only at 127.0.0.1:${guard.port}`)
  }
  if (req.method === "GET" && req.path === "/" && req.search.has("s")) {
    return sameSecret(req.search.get("s") ?? undefined, guard.secret) ? { _tag: "login" } : deny(401, "wrong secret: open the address `awhm ui` printed")
  }
  const bearer = req.headers.authorization?.startsWith("Bearer ") === true ? req.headers.authorization.slice(7) : undefined
  const byBearer = sameSecret(bearer, guard.secret)
  if (!byBearer && !sameSecret(req.cookies[cookieName(guard.port)], guard.secret)) {
    return deny(401, "no secret: open the address `awhm ui` printed (it carries this run's secret)")
  }
  // A browser attaches the cookie by itself; a bearer token it never sends unasked.
  if (byBearer || !req.path.startsWith("/api/")) return { _tag: "allow" }
  if (!sameSecret(req.headers["x-awhm-csrf"], guard.csrf)) return deny(403, "missing or wrong CSRF token")
  if (!SAFE.has(req.method)) {
    const fetchSite = req.headers["sec-fetch-site"]
    if (req.headers.origin !== `http://${host}` || (fetchSite !== undefined && fetchSite !== "same-origin")) {
      return deny(403, "refused a request from another origin")
    }
  }
  return { _tag: "allow" }
}
