import { ESLint } from "eslint"
import { describe, expect, it } from "vitest"

// The code map's import rule, as `npm run lint` applies it to a file in each room.
const violations = async (filePath: string, source: string): Promise<Array<string>> => {
  const [result] = await new ESLint({ cwd: process.cwd() }).lintText(source, { filePath })
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message)
}

describe("import boundaries (npm run lint)", () => {
  it("refuses a program that imports a layer or a face", async () => {
    expect(await violations("src/programs/example.ts", 'import { MainLive } from "../layers/Main.js"\nexport const x = MainLive\n')).toEqual([
      "'../layers/Main.js' import is restricted from being used by a pattern. programs use service tags: they never import layers or faces"
    ])
    expect(await violations("src/programs/consolidate/example.ts", 'import { x } from "../../cli/common.js"\nexport const y = x\n')).toEqual([
      "'../../cli/common.js' import is restricted from being used by a pattern. programs use service tags: they never import layers or faces"
    ])
  })

  it("refuses a layer that imports a program or a face", async () => {
    expect(await violations("src/layers/Example.ts", 'import { retrieve } from "../programs/retrieve.js"\nexport const x = retrieve\n')).toEqual([
      "'../programs/retrieve.js' import is restricted from being used by a pattern. layers never import programs or faces"
    ])
    expect(await violations("src/layers/retriever/example.ts", 'import { x } from "../../hooks/run.js"\nexport const y = x\n')).toEqual([
      "'../../hooks/run.js' import is restricted from being used by a pattern. layers never import programs or faces"
    ])
  })

  it("lets services import only domain, and domain nothing outside itself", async () => {
    expect(await violations("src/services/Example.ts", 'import type { X } from "../store/paths.js"\nexport type Y = X\n')).toEqual([
      "'../store/paths.js' import is restricted from being used by a pattern. services import only domain/"
    ])
    expect(await violations("src/services/Example.ts", 'import type { MemoryNode } from "../domain/Node.js"\nexport type Y = MemoryNode\n')).toEqual([])
    expect(await violations("src/domain/Example.ts", 'import { tokenize } from "../text/tokenize.js"\nexport const y = tokenize\n')).toEqual([
      "'../text/tokenize.js' import is restricted from being used by a pattern. domain imports nothing of src outside domain/"
    ])
    expect(await violations("src/domain/Example.ts", 'import { InvalidInput } from "./errors.js"\nexport const y = InvalidInput\n')).toEqual([])
  })

  it("lets a face compose layers and programs", async () => {
    expect(
      await violations("src/cli/example.ts", 'import { MainLive } from "../layers/Main.js"\nimport { retrieve } from "../programs/retrieve.js"\nexport const x = [MainLive, retrieve]\n')
    ).toEqual([])
  })
})
