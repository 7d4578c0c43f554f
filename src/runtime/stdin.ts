/** All of the process's stdin as text (empty when it is a terminal: there is no payload to wait for). */
export const readProcessStdin = async (): Promise<string> => {
  if (process.stdin.isTTY) return ""
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}
