import { describe, expect, it } from "@effect/vitest"
import { checkRequest, cookieName, type GuardedRequest } from "../../src/ui/guard.js"

const guard = { port: 4321, secret: "s3cret", csrf: "tok3n" }
const req = (over: Partial<GuardedRequest> = {}): GuardedRequest => ({
  method: "GET",
  path: "/api/status",
  search: new URLSearchParams(),
  headers: { host: "127.0.0.1:4321", "x-awhm-csrf": "tok3n" },
  cookies: { [cookieName(4321)]: "s3cret" },
  ...over
})
const verdict = (r: GuardedRequest) => {
  const v = checkRequest(guard, r)
  return v._tag === "deny" ? `${v.status} ${v.message}` : v._tag
}

describe("viewer guard", () => {
  it("lets the page's own requests through", () => {
    expect(verdict(req())).toBe("allow")
    expect(verdict(req({ path: "/", headers: { host: "localhost:4321" } }))).toBe("allow")
    expect(verdict(req({ method: "POST", path: "/api/delete", headers: { host: "127.0.0.1:4321", "x-awhm-csrf": "tok3n", origin: "http://127.0.0.1:4321", "sec-fetch-site": "same-origin" } }))).toBe(
      "allow"
    )
  })

  it("trades the printed URL's secret for the cookie, and refuses a wrong one", () => {
    expect(verdict(req({ path: "/", search: new URLSearchParams("s=s3cret"), cookies: {} }))).toBe("login")
    expect(verdict(req({ path: "/", search: new URLSearchParams("s=guess"), cookies: {} }))).toBe("401 wrong secret: open the address `awhm ui` printed")
  })

  it("answers 401 without the secret, whatever the path", () => {
    for (const path of ["/", "/app.js", "/api/status", "/api/delete"]) {
      expect(verdict(req({ path, cookies: {} }))).toBe("401 no secret: open the address `awhm ui` printed (it carries this run's secret)")
      expect(verdict(req({ path, cookies: { [cookieName(4321)]: "s3cre" } }))).toMatch(/^401 /)
      // Another viewer's cookie (another port) is not this one's.
      expect(verdict(req({ path, cookies: { [cookieName(4322)]: "s3cret" } }))).toMatch(/^401 /)
    }
    expect(verdict(req({ cookies: {}, headers: { host: "127.0.0.1:4321", authorization: "Bearer s3cret" } }))).toBe("allow")
  })

  it("refuses API calls without the CSRF token, and changes from another origin", () => {
    expect(verdict(req({ headers: { host: "127.0.0.1:4321" } }))).toBe("403 missing or wrong CSRF token")
    const post = (headers: Record<string, string>) => verdict(req({ method: "POST", path: "/api/delete", headers: { host: "127.0.0.1:4321", "x-awhm-csrf": "tok3n", ...headers } }))
    expect(post({ origin: "http://127.0.0.1:9999" })).toBe("403 refused a request from another origin")
    expect(post({})).toBe("403 refused a request from another origin")
    expect(post({ origin: "http://127.0.0.1:4321", "sec-fetch-site": "same-site" })).toBe("403 refused a request from another origin")
  })

  it("refuses a Host that is not this viewer's (DNS rebinding)", () => {
    expect(verdict(req({ headers: { host: "evil.example:4321", "x-awhm-csrf": "tok3n" } }))).toBe("403 this viewer answers only at 127.0.0.1:4321")
    expect(verdict(req({ headers: { "x-awhm-csrf": "tok3n" } }))).toMatch(/^403 /)
  })
})
