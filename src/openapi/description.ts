/** The API's own words for the reference's introduction. */

/** Markdown, as `info.description`. */
export const API_DESCRIPTION = `Tracelake receives OpenTelemetry traces and coding-agent sessions and serves them back as traces, spans and sessions, with scores, comments, filters and search, metrics, eval runs and experiments, prompts and templates from a connected git repository, API keys, apps and environments.

**Authentication.** Send an API key (\`sk_service_…\`) or a session token in \`Authorization\` (\`Bearer \` optional) and the app id in \`X-Service-App-Id\`. OTLP ingestion (\`POST /v1/traces\`) takes the raw key, without \`Bearer \`. A kind-scoped key names its environment with \`X-Service-Environment\` (or \`X-Service-Pull-Request\`). \`GET /v1/auth/app\` answers the app of a key or token sent alone. Each operation names the permission it needs (\`x-tracelake-permission\`; \`admin\` is a Full Access key or a session token); \`none\` needs no credentials (but \`GET /v1/auth/app\`, which takes the credential alone); \`eval_run\` is an eval run's own run-scoped key or admin credentials; \`worker\` is a Worker key (what \`tracelake worker\` runs with) or admin credentials. On a server started with \`--mode local\`, requests without \`Authorization\` act as the local app.

**Surfaces.** \`x-tracelake-surface\` lists the modes whose servers answer an operation; the other answers 501 \`not_available_locally\` or \`not_available_on_cloud\`. Operations tagged "${'Not built in this version'}" are the spec's endpoints this version answers with 501 \`not_implemented\`.

**Answers.** Success bodies are \`{"data": …}\` (lists add \`pagination\`: \`total\`, \`limit\`, \`offset\`). Every error is \`{"error": {"code", "message", "details"?}}\`, with extra context as flat fields of \`error\`; validation errors (400) map each failing field to a message in \`details\`. Every \`GET\` answers \`HEAD\` too. Every answer carries \`X-Request-Id\`; 429 and 503 carry \`Retry-After\`.

**Operator API.** The operations tagged "Operator" (\`/v1/operator/*\`, \`x-tracelake-requires: operator-token\`) run the \`tracelake\` CLI's administration commands on a running server. A server serves them only when it has an operator token (\`TRACELAKE_OPERATOR_TOKEN\`), in both modes, and answers 404 to them otherwise; they take that token alone in \`Authorization\` (\`Bearer \` optional), without \`X-Service-App-Id\`.

**Not JSON.** A few routes serve a browser or a scraper rather than an API client: the web UI (\`GET /\`, \`GET /ui/{file}\`), the page where a human finishes a git handshake (\`/v1/git/setup\`, \`/v1/git/github/callback\`), Prometheus metrics (\`GET /metrics\`) and this reference as a page. They are listed with their media types; their errors are the same JSON bodies as everywhere.

**Windows.** Lists and searches of traces, spans and scores cover the last 7 days unless \`start_date\`/\`end_date\` say otherwise; a window is at most 90 days. Every windowed endpoint takes the bounds by either name, \`start_date\` or \`from\` and \`end_date\` or \`to\`; one bound named twice with different instants is 400 \`invalid_time_window\` naming both.`;
