import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A model endpoint that answers `GET /v1/models` as an OpenAI-compatible server does, serving `ids`. */
export async function modelServer(
  ids: string[] = ["local-coder"],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith("/v1/models"))
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ data: ids.map((id) => ({ id })) }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
