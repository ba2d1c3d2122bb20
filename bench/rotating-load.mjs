// autocannon with a different request each time (headers and body taken in turn from a list), for
// scenarios where repeating one request would hit a limit. Run by bench/support.ts under Node.js:
//   node bench/rotating-load.mjs <config.json>   → autocannon's JSON result on stdout
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
let next = 0;
const result = await autocannon({
  url: config.url,
  method: config.method,
  connections: config.connections,
  duration: config.seconds,
  requests: [
    {
      setupRequest(request) {
        const variant = config.variants[next++ % config.variants.length];
        return { ...request, headers: { ...request.headers, ...variant.headers }, body: variant.body };
      },
    },
  ],
});
process.stdout.write(JSON.stringify(result));
