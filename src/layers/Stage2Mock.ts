import { Effect, Layer } from "effect"
import { Stage2Client, Stage2Error, type Stage2Request } from "../services/Stage2Client.js"

/** A Stage2Client layer that also exposes the requests it received, in order. */
export interface Stage2MockLayer extends Layer.Layer<Stage2Client> {
  readonly requests: ReadonlyArray<Stage2Request>
}

const EMPTY = { memories: [] }

const toError = (e: unknown): Stage2Error =>
  e instanceof Stage2Error ? e : new Stage2Error({ client: "mock", message: e instanceof Error ? e.message : String(e) })

/**
 * Replays recorded answers (raw text or parsed JSON), one per call, then `{"memories":[]}`; or answers
 * with a function of the request. A Stage2Error answer (returned or thrown) is that call's failure.
 * Answers go through the same decoder as a real client's. The cursor and the recorded requests are
 * shared by every use of the returned layer.
 */
export const Stage2Mock = (
  answers: ReadonlyArray<unknown> | ((request: Stage2Request) => unknown)
): Stage2MockLayer => {
  const requests: Array<Stage2Request> = []
  let next = 0
  const layer = Layer.succeed(
    Stage2Client,
    Stage2Client.of({
      name: "mock",
      complete: (request) =>
        Effect.suspend(() => {
          requests.push(request)
          let answer: unknown
          try {
            answer = typeof answers === "function" ? answers(request) : next < answers.length ? answers[next++] : EMPTY
          } catch (e) {
            return Effect.fail(toError(e))
          }
          return answer instanceof Stage2Error ? Effect.fail(answer) : Effect.succeed(answer)
        })
    })
  )
  return Object.assign(layer, { requests: requests as ReadonlyArray<Stage2Request> })
}
