/* eslint-disable */
// Generated from src/http/openapi.ts by scripts/console-api-types.ts (openapi-typescript). Do not edit:
// run `npm run console:types`. test/console/api-types.test.ts keeps it in step with the document.
export interface paths {
    "/api/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the live API keys (never the keys themselves): filtered, and paged with limit and cursor */
        get: operations["listApiKeys"];
        put?: never;
        /** Create an API key; the key itself is shown only in this answer */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key, at once
         * @description The last active admin key is not revoked (409): RULEVAULT_ADMIN_KEY on the node counts as one.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/chain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The hash chain of the live store: the last verification (verified up to a position, or the first break and its kind), the signing key and its rotations, the checkpoints (scope admin) */
        get: operations["auditChain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/chain/checkpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify what is new, then sign the verified head now: a checkpoint event (scope admin) */
        post: operations["auditChainCheckpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/chain/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start verifying the hash chain (or join the run going on: never two at once); answers at once, poll GET /api/audit/chain (scope admin) */
        post: operations["auditChainVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/decisions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The record of an evaluate answer by its decision id (scope admin; decision logging on and the answer sampled) */
        get: operations["auditDecision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/decisions/{id}/evidence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The evidence file of a decision (scope admin), as `rulevault audit evidence` writes it: verify it offline with `rulevault audit verify-evidence` */
        get: operations["auditDecisionEvidence"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/decisions/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A decision record evaluated again at its position (or `as_of`) and compared with its answer (scope admin) */
        get: operations["auditDecisionReplay"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/digest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A digest of the live read models, comparable with an offline replay */
        get: operations["auditDigest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/evaluate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What evaluate answered at a past log position or time (`as_of`), optionally explained */
        post: operations["auditEvaluate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of the event log; secret values appear only sealed */
        get: operations["auditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit/secret-reads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The secret-read audit: get-secrets calls, oldest first, filtered and paged (scope admin); never a value */
        get: operations["auditSecretReads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List change requests, by id: `state` keeps one state; paged with limit and cursor (scope admin or approve) */
        get: operations["listChangeRequests"];
        put?: never;
        /**
         * Open a change request (a draft): changes to rules, contexts, prompts, labels and protections, each pinned to a revision
         * @description Each change is checked as its direct route checks its body; one without base_revision is pinned to the resource's revision now (docs/change-requests.md).
         */
        post: operations["openChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a change request: its state, changes, approvals and comments (scope admin or approve); with `as_of`, as it was then (scope admin, no ETag) */
        get: operations["getChangeRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Revise a draft or a request in review: its title, description or changes; every approval is cleared */
        patch: operations["reviseChangeRequest"];
        trace?: never;
    };
    "/api/change-requests/{id}/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Apply an approved request: every change or none; 409 stale naming a resource that moved; applying again answers the first apply */
        post: operations["applyChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve the revision read (If-Match required; scope approve; never the author's key); 409 while a test case fails, unless the body overrides with a reason */
        post: operations["approveChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Comment on a request (scope admin or approve) */
        post: operations["commentChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every step of a change request: who, when and why, oldest first (scope admin or approve) */
        get: operations["changeRequestHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/impact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Replay the recorded decisions of a window against the catalog the request would produce: which answers change (scope admin or approve)
         * @description docs/change-requests.md#impact-and-test-cases; a change pinned to a revision its resource has left is a 409 (applied, the request would be stale).
         */
        get: operations["changeRequestImpact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a request with a reason (scope approve) */
        post: operations["rejectChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open a draft that undoes an applied request, pinned to the revisions the apply left */
        post: operations["revertChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a draft for review */
        post: operations["submitChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/test-results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Run the test cases against the catalog the request would produce (its own, when it sets them); a failing case blocks approval (scope admin or approve) */
        get: operations["changeRequestTestResults"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/change-requests/{id}/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Withdraw a request */
        post: operations["withdrawChangeRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/contexts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the contexts, by id: filtered, and paged with limit and cursor */
        get: operations["listContexts"];
        put?: never;
        /** Create a context */
        post: operations["createContext"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/contexts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a context */
        get: operations["getContext"];
        put?: never;
        post?: never;
        /**
         * Delete a context
         * @description Rules (ACTIVE or INACTIVE) that link to it are unlinked first, with a RuleUpdated event each; then it is deleted.
         */
        delete: operations["deleteContext"];
        options?: never;
        head?: never;
        /**
         * Change a context: any subset of the create members
         * @description A PATCH that changes nothing (`{}`, or members set to their current values) writes no event and answers the current state, revision unchanged.
         */
        patch: operations["updateContext"];
        trace?: never;
    };
    "/api/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import rules, contexts and prompts: all or nothing, answered once every item is evaluable (scope admin)
         * @description The body is NDJSON (one ImportItem per line; blank lines skipped) or a JSON array of ImportItems, whatever the Content-Type, uncompressed. Every item is checked as its create route checks it before anything is written; the first bad one is the error, its message starting with `line <n>` (NDJSON) or `item [<i>]` (array). At most RULEVAULT_IMPORT_MAX_ITEMS items and RULEVAULT_IMPORT_MAX_BYTES bytes (413 above; RULEVAULT_MAX_BODY_BYTES does not apply). On the embedded store the batch is one transaction; on EventStoreDB one append per item, in order (docs/api.md#import).
         */
        post: operations["importItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/prompt/get-compiled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OpenLIT's prompt route: a prompt by name or id, at a version or label, optionally rendered (scope evaluate)
         * @description For OpenLIT's SDKs, unchanged. Always 200 past the CORS check, failures included (a missing key, an unknown prompt, a bad body, not ready): the caller checks `err`. Other members (`source`, `metaProperties`) are ignored.
         */
        post: operations["getCompiledPrompt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/prompts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the prompts, by id: filtered, and paged with limit and cursor */
        get: operations["listPrompts"];
        put?: never;
        /** Create a prompt (a template or a chat, and a config) at its first version; names are unique (409 when taken) */
        post: operations["createPrompt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/prompts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a prompt (by id or name) at its latest version, at `?version=` or at `?label=` */
        get: operations["getPrompt"];
        put?: never;
        post?: never;
        /**
         * Delete a prompt
         * @description Rules (ACTIVE or INACTIVE) that link to it are unlinked first, with a RuleUpdated event each; then it is deleted.
         */
        delete: operations["deletePrompt"];
        options?: never;
        head?: never;
        /**
         * Change a prompt's name (409 when taken), tags, meta_properties or status (a template changes by adding a version)
         * @description A PATCH that changes nothing (`{}`, or members set to their current values) writes no event and answers the current state, revision unchanged.
         */
        patch: operations["updatePrompt"];
        trace?: never;
    };
    "/api/prompts/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every event of a prompt (versions, label moves, changes) with who, when and where in the log */
        get: operations["promptHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/prompts/{id}/labels/{label}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Point `production` or a custom label at a version (promote, roll back); `latest` moves by itself
         * @description Each move is a PromptLabelMoved event in the prompt's history. Moving a label to the version it names already writes nothing.
         */
        put: operations["movePromptLabel"];
        post?: never;
        /** Remove a custom label (`latest` and `production` cannot be removed) */
        delete: operations["removePromptLabel"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/prompts/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a version (a template or a chat, and a config); it must be greater than the latest (default: next minor) */
        post: operations["addPromptVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/protections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The protected resources (scope admin or approve) */
        get: operations["listProtections"];
        /** Protect a resource at once: from now on it changes only through an approved change request */
        put: operations["protect"];
        post?: never;
        /** Always 409 protected: a protection is removed only by an approved change request's `unprotect` change */
        delete: operations["unprotect"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rule-engine/dry-run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Evaluate over the live rules with draft rules added or in place of live ones, each rule explained; writes nothing (scope admin) */
        post: operations["dryRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rule-engine/evaluate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The active rules that match the fields, and the entities they link to (scope evaluate)
         * @description The body is read as JSON whatever the Content-Type says.
         */
        post: operations["evaluate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rule-engine/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Why the matching rules and the rules named in rule_ids did or did not match, condition by condition (scope explain or admin) */
        post: operations["explain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rule-engine/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the rules, by id: filtered, and paged with limit and cursor */
        get: operations["listRules"];
        put?: never;
        /** Create a rule; a `key` names one flag (docs/openfeature.md): 409 when another rule holds it */
        post: operations["createRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rule-engine/rules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a rule */
        get: operations["getRule"];
        put?: never;
        post?: never;
        /** Delete a rule */
        delete: operations["deleteRule"];
        options?: never;
        head?: never;
        /**
         * Change a rule: any subset of the create members
         * @description A PATCH that changes nothing (`{}`, or members set to their current values) writes no event and answers the current state, revision unchanged.
         */
        patch: operations["updateRule"];
        trace?: never;
    };
    "/api/rule-engine/rules/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every event of a rule, with who, when, where in the log, and what changed */
        get: operations["ruleHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rule-engine/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server-Sent Events: the active rules and the active entities they link, then every change, each with its log position as id (scope evaluate)
         * @description Events `snapshot`, `change`, `cutoff`, `shutdown`, `revoked` (the key was revoked: the stream ends); heartbeats are comment lines. Resume with `Last-Event-ID`. HEAD answers the same checks and head, with no body (docs/change-stream.md#resuming).
         */
        get: operations["changeStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/test-cases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The test-case set change requests run; set only by an applied request's set-test-cases (scope admin or approve) */
        get: operations["getTestCases"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/vault/get-secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Secret values by key and/or tags (scope secrets:read)
         * @description Always 200 past the CORS check, failures included (a missing key, a bad body, not ready): the caller checks `err`.
         */
        post: operations["getSecrets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/vault/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the secrets, by id: filtered, and paged with limit and cursor */
        get: operations["listSecrets"];
        put?: never;
        /** Create a secret; the answer never holds the value */
        post: operations["createSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/vault/secrets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a secret
         * @description Erases the secret: answered 204 once the erasure is committed (later steps that cannot run at once are finished in the background; GET /readyz reports them). A DELETE of a secret the log has erased already answers 204 too, whatever If-Match says; 404 is for an id that was never a secret.
         */
        delete: operations["deleteSecret"];
        options?: never;
        head?: never;
        /**
         * Change a secret: any subset of the create members
         * @description A PATCH that changes nothing (`{}`, or members set to their current values) writes no event and answers the current state, revision unchanged.
         */
        patch: operations["updateSecret"];
        trace?: never;
    };
    "/api/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling key: its id, name, scopes and secret tags (any valid key) */
        get: operations["whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The web console (signs in with an API key; served locally under a strict Content-Security-Policy) */
        get: operations["console"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Browsable documentation (Swagger UI, served locally) */
        get: operations["docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: 200 while the process serves */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (an admin key, or RULEVAULT_METRICS_TOKEN) */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ofrep/v1/evaluate/flags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OFREP: evaluate every flag, in key order, with an ETag (scope evaluate; Bearer or X-API-Key)
         * @description The bulk evaluation. A flag that fails (TARGETING_KEY_MISSING) is an item of `flags`; a bad context fails the whole request. `If-None-Match` naming the answer's ETag is a 304 with no body (ADR 0058).
         */
        post: operations["ofrepEvaluateFlags"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ofrep/v1/evaluate/flags/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OFREP: evaluate one flag, a rule with a key (scope evaluate; Bearer or X-API-Key)
         * @description The OpenFeature Remote Evaluation Protocol's single evaluation (docs/openfeature.md). The context's nested objects are dotted field names, null an absent field, an array INVALID_CONTEXT, `variables` the prompts' variables. Failures are `{key, errorCode, errorDetails}`.
         */
        post: operations["ofrepEvaluateFlag"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: 200 once the read models caught up with the log */
        get: operations["ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description the API key id that made the change, or `env-admin`, `cli`, `system` */
        Actor: string;
        ApiKey: {
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            id: string;
            name: string;
            scopes: ("evaluate" | "secrets:read" | "explain" | "admin" | "approve" | "break-glass")[];
            secret_tags: string[];
        };
        ApiKeyCreated: {
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            id: string;
            /** @description the API key itself, shown only in this answer */
            key: string;
            name: string;
            scopes: ("evaluate" | "secrets:read" | "explain" | "admin" | "approve" | "break-glass")[];
            secret_tags: string[];
        };
        ApiKeyInput: {
            name: string;
            scopes: ("evaluate" | "secrets:read" | "explain" | "admin" | "approve" | "break-glass")[];
            secret_tags?: string[];
        };
        ApiKeyList: {
            api_keys: components["schemas"]["ApiKey"][];
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
        };
        ApprovalInput: {
            /** @description why the approval stands although test cases fail; recorded with the approval */
            override?: string;
        };
        AuditEvaluateRequest: {
            /** @description a log position (a whole number or its decimal string) or an ISO 8601 time with a zone */
            as_of: string | number;
            entity_inputs?: {
                /** @description the version a label names (`latest`, `production`, a custom one); not with version */
                label?: string;
                shouldCompile?: boolean;
                /** @description true: a render with variables missing is refused (compiled_prompt null, error naming them) */
                strict?: boolean;
                variables?: Record<string, never>;
                version?: string;
            } & {
                [key: string]: unknown;
            };
            /** @enum {string} */
            entity_type: "context" | "prompt" | "evaluation";
            explain?: boolean;
            /** @description explain only those of the rules asked about with a condition on this field */
            field?: string;
            /** @description at most RULEVAULT_MAX_FIELDS members; names and string values are length-limited; null is an absent field */
            fields: {
                [key: string]: string | number | boolean | null;
            };
            include_entity_data?: boolean;
            /** @description rules to explain besides the matching ones, matched or not, ACTIVE or not; each must exist (400 otherwise) */
            rule_ids?: string[];
        } & {
            [key: string]: unknown;
        };
        AuditEvaluateResponse: {
            as_of: {
                at: components["schemas"]["Timestamp"] | null;
                position: components["schemas"]["Position"] | null;
            };
            entities: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /**
                 * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                 * @enum {string}
                 */
                reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                rule_id: string;
                /** @description the split variant that chose this link; null for a plain link */
                variant: string | null;
            }[];
            /** @description keyed `<entity_type>:<entity_id>`; `{}` for evaluations; null for a prompt version that does not exist */
            entity_data?: {
                [key: string]: components["schemas"]["ContextRecord"] | components["schemas"]["PromptRecord"] | null;
            };
            explain?: components["schemas"]["RuleExplanation"][];
            /** @description rules asked about but left out to keep the explanations within 1048576 bytes, sorted; name them in rule_ids to have them explained */
            explain_omitted_rule_ids?: string[];
            matchingRuleIds: string[];
        };
        AuditPage: {
            events: {
                actor: components["schemas"]["Actor"];
                at: components["schemas"]["Timestamp"];
                data: Record<string, never>;
                metadata: components["schemas"]["EventMetadata"];
                position: components["schemas"]["Position"];
                request_id: string;
                revision: components["schemas"]["Position"];
                stream: string;
                type: string;
            }[];
            /** @description pass as `after` for the next page; null at the end */
            next: components["schemas"]["Position"] | null;
            /** @description the opaque form of `next`, taken by `cursor`, as on every list */
            next_cursor: string | null;
            /**
             * @description present when a filtered scan stopped early: continue from `next`
             * @constant
             */
            scan_limit_reached?: true;
            /**
             * @description present when the page's event data reached ~8 MB before `limit` events: continue from `next`
             * @constant
             */
            size_limit_reached?: true;
        };
        ChainPoint: {
            /** @description the chain's hash there */
            hash: string;
            position: components["schemas"]["Position"];
            /** @description the event's place in the hash chain (1 for the first event) */
            seq: number;
        };
        ChainStatus: {
            /** @description the checkpoints the last run checked, newest first (at most 20) */
            checkpoints: {
                at: string | null;
                hash: string;
                key_id: string;
                next_public_key?: string;
                position: components["schemas"]["Position"];
                public_key: string;
                seq: number;
                signature: string;
            }[];
            /** @description events read by every run since the service started */
            events_read: number;
            /** @description the keys that signed checkpoints, first one first; a rotation's key names the key that endorsed it */
            keys: {
                checkpoints: number;
                /** @description the service signs with this key now */
                current: boolean;
                endorsed_by: string | null;
                key_id: string;
                public_key: string;
            }[];
            /** @description the last finished run's report over the whole log (as `rulevault audit verify --json` prints it); null before the first run */
            report: {
                /** @description the first position where the log was changed, and how; null when verified */
                break: {
                    /** @enum {unknown} */
                    kind: "modified" | "removed" | "inserted" | "reordered" | "unlinked" | "signature";
                    message: string;
                    position: components["schemas"]["Position"];
                } | null;
                checkpoints: number;
                erased_events: number;
                /** @description events checked, from the first event of the log */
                events: number;
                /** @description true when checkpoints were checked against a trusted key (the first checkpoint's key and the keys it endorsed) */
                keys_given: boolean;
                /** @description the last chain point a valid checkpoint signed */
                signed_through: components["schemas"]["ChainPoint"] | null;
                verified: boolean;
                /** @description the last event up to which everything checked */
                verified_through: components["schemas"]["ChainPoint"] | null;
            } | null;
            /** @description the run going on, or the last one; null before the first */
            run: {
                /** @description events this run read (set when it finished) */
                checked_events: number;
                /** @description why the run could not finish (the store failed) */
                error: string | null;
                finished_at: string | null;
                /** @description counts runs since the service started */
                id: number;
                /**
                 * @description `incremental` reads only the events appended since the last run; `full` reads the whole log again
                 * @enum {unknown}
                 */
                mode: "full" | "incremental";
                started_at: string;
            } | null;
            /** @description a verification run is going on: poll this document until false */
            running: boolean;
            signing_key: {
                /** @constant */
                algorithm: "ed25519";
                key_id: string;
                /** @description base64 of the Ed25519 public key */
                public_key: string;
            };
        };
        ChainVerifyRequest: {
            /** @description true: verify the whole log again from its first event (default: only what was appended since the last run) */
            full?: boolean;
        };
        Change: {
            base_revision?: components["schemas"]["Position"];
            body?: Record<string, never>;
            /** @enum {string} */
            op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
            resource: components["schemas"]["ResourceRef"];
        };
        ChangeInput: {
            /** @description the revision drafted against; absent: the resource's revision now (none for a create, protect, unprotect) */
            base_revision?: components["schemas"]["Position"];
            /** @description what the matching direct route takes: a create or update body, a version, `{version}` for a label move; `{cases}` for set-test-cases (NDJSON text, one case a line, or a JSON array of cases; empty: no cases) */
            body?: Record<string, never>;
            /** @enum {string} */
            op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
            /** @description required but for a set-test-cases, whose resource is the one set */
            resource?: components["schemas"]["ChangeResourceInput"];
        };
        ChangeRequest: {
            /** @description EventStoreDB: the plan is written and not yet finished (the next apply or start finishes it) */
            applying: boolean;
            approvals: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                override?: string;
                revision: components["schemas"]["Position"];
            }[];
            approvals_required: number;
            author: components["schemas"]["Actor"];
            changes: components["schemas"]["Change"][];
            closed: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                reason: string;
                resource?: components["schemas"]["ResourceRef"];
            } | null;
            comments: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                text: string;
            }[];
            created_at: components["schemas"]["Timestamp"];
            description: string;
            id: string;
            results: {
                before_revision?: components["schemas"]["Position"];
                /** @enum {string} */
                op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
                resource: components["schemas"]["ResourceRef"];
                revision?: components["schemas"]["Position"];
            }[] | null;
            revision: components["schemas"]["Position"];
            /** @enum {string} */
            state: "draft" | "in_review" | "approved" | "applied" | "rejected" | "withdrawn" | "stale";
            title: string;
            updated_at: components["schemas"]["Timestamp"];
        };
        ChangeRequestAsOf: {
            /** @description EventStoreDB: the plan is written and not yet finished (the next apply or start finishes it) */
            applying: boolean;
            approvals: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                override?: string;
                revision: components["schemas"]["Position"];
            }[];
            approvals_required: number;
            as_of: {
                at: string | null;
                position: components["schemas"]["Position"] | null;
            };
            author: components["schemas"]["Actor"];
            changes: components["schemas"]["Change"][];
            closed: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                reason: string;
                resource?: components["schemas"]["ResourceRef"];
            } | null;
            comments: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                text: string;
            }[];
            created_at: components["schemas"]["Timestamp"];
            description: string;
            id: string;
            results: {
                before_revision?: components["schemas"]["Position"];
                /** @enum {string} */
                op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
                resource: components["schemas"]["ResourceRef"];
                revision?: components["schemas"]["Position"];
            }[] | null;
            revision: components["schemas"]["Position"];
            /** @enum {string} */
            state: "draft" | "in_review" | "approved" | "applied" | "rejected" | "withdrawn" | "stale";
            title: string;
            updated_at: components["schemas"]["Timestamp"];
        };
        ChangeRequestHistory: {
            events: {
                actor: components["schemas"]["Actor"];
                at: components["schemas"]["Timestamp"];
                data: Record<string, never>;
                metadata: components["schemas"]["EventMetadata"];
                position: components["schemas"]["Position"];
                request_id: string;
                revision: components["schemas"]["Position"];
                type: string;
            }[];
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
        };
        ChangeRequestInput: {
            changes: components["schemas"]["ChangeInput"][];
            description?: string;
            title: string;
        };
        ChangeRequestList: {
            change_requests: components["schemas"]["ChangeRequest"][];
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
        };
        ChangeRequestPatch: {
            changes?: components["schemas"]["ChangeInput"][];
            description?: string;
            title?: string;
        };
        ChangeRequestRead: {
            /** @description EventStoreDB: the plan is written and not yet finished (the next apply or start finishes it) */
            applying: boolean;
            approvals: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                override?: string;
                revision: components["schemas"]["Position"];
            }[];
            approvals_required: number;
            author: components["schemas"]["Actor"];
            changes: components["schemas"]["ChangeWithBefore"][];
            closed: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                reason: string;
                resource?: components["schemas"]["ResourceRef"];
            } | null;
            comments: {
                at: components["schemas"]["Timestamp"];
                by: components["schemas"]["Actor"];
                text: string;
            }[];
            created_at: components["schemas"]["Timestamp"];
            description: string;
            id: string;
            results: {
                before_revision?: components["schemas"]["Position"];
                /** @enum {string} */
                op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
                resource: components["schemas"]["ResourceRef"];
                revision?: components["schemas"]["Position"];
            }[] | null;
            revision: components["schemas"]["Position"];
            /** @enum {string} */
            state: "draft" | "in_review" | "approved" | "applied" | "rejected" | "withdrawn" | "stale";
            title: string;
            updated_at: components["schemas"]["Timestamp"];
        };
        ChangeResourceInput: {
            id?: string;
            label?: string;
            /** @enum {string} */
            type: "rule" | "context" | "prompt" | "prompt-label" | "test-cases";
        };
        ChangeWithBefore: {
            base_revision?: components["schemas"]["Position"];
            before: (components["schemas"]["Rule"] | components["schemas"]["Context"] | components["schemas"]["Prompt"]) | null;
            body?: Record<string, never>;
            /** @enum {string} */
            op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
            resource: components["schemas"]["ResourceRef"];
        };
        CommentInput: {
            text: string;
        };
        Context: {
            content: string;
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            description: string;
            id: string;
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties: Record<string, never>;
            name: string;
            position: components["schemas"]["Position"];
            revision: components["schemas"]["Position"];
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
            tags: string[];
            updated_at: components["schemas"]["Timestamp"];
        };
        ContextInput: {
            content: string;
            description?: string;
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties?: Record<string, never>;
            name: string;
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
            tags?: string[];
        };
        ContextList: {
            contexts: components["schemas"]["Context"][];
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
        };
        ContextPatch: {
            content?: string;
            description?: string;
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties?: Record<string, never>;
            name?: string;
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
            tags?: string[];
        };
        ContextRecord: {
            content: string;
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            description: string;
            id: string;
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties: Record<string, never>;
            name: string;
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
            tags: string[];
            updated_at: components["schemas"]["Timestamp"];
        };
        DecisionAnswer: {
            entities: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /**
                 * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                 * @enum {string}
                 */
                reason?: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                rule_id: string;
                /** @description the split variant that chose this link; null for a plain link */
                variant?: string | null;
            }[];
            /** @description SHA-256 of the JSON of entity_data, when the request asked for it and nothing was masked (a digest of what a masked value rendered into would let a guess of it be checked) */
            entity_data_sha256?: string;
            matchingRuleIds: string[];
        };
        DecisionRecord: {
            answer: components["schemas"]["DecisionAnswer"];
            /** @description ISO 8601 time the answer was computed */
            at: string;
            /** @description the RuleVault-Decision-Id the answer carried (a UUID version 7: sorts by time) */
            decision_id: string;
            /** @description the API key that called */
            key_id: string;
            /** @description paths of the masked values (`fields.<name>`, `entity_inputs.variables.<path>`, as `entity_inputs.variables.customer.ssn`) */
            masked: string[];
            /** @description the log position the answer was computed at (null: the empty log) */
            position: components["schemas"]["Position"] | null;
            request: {
                /** @description variables (masked like fields, at any depth), shouldCompile, strict, and version or label when given */
                entity_inputs: Record<string, never>;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /** @description as sent; a masked value is "[masked]" (RULEVAULT_DECISION_LOG_MASK_FIELDS) */
                fields: Record<string, never>;
                include_entity_data: boolean;
            };
        };
        DecisionReplay: {
            decision_id: string;
            differences: {
                /** @description entities as `<rule_id> <entity_type>:<entity_id>` */
                entities?: components["schemas"]["SetDifference"];
                entity_data?: {
                    recorded_sha256: string | null;
                    replayed_sha256: string | null;
                };
                matchingRuleIds?: components["schemas"]["SetDifference"];
            };
            /** @description masked values, left out of the replay */
            masked: string[];
            recorded: components["schemas"]["DecisionAnswer"];
            recorded_position: components["schemas"]["Position"] | null;
            replayed: components["schemas"]["DecisionAnswer"];
            replayed_at: {
                at: string | null;
                position: components["schemas"]["Position"] | null;
            };
            /** @description true when the replayed answer equals the recorded one in every part compared */
            same: boolean;
            /** @description the parts of the answer the replay cannot reproduce, each with the masked values it depends on: matchingRuleIds and entities when a rule at the replayed point reads a masked field, entity_data whenever a value was masked (its digest is not kept, so it is not compared) */
            unreproducible: {
                entities?: string[];
                entity_data?: string[];
                matchingRuleIds?: string[];
            };
        };
        DecisionStandIn: {
            answer: {
                entities: {
                    entity_id: string;
                    /** @enum {string} */
                    entity_type: "context" | "prompt" | "evaluation";
                    /**
                     * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                     * @enum {string}
                     */
                    reason?: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                    rule_id: string;
                    /** @description the split variant that chose this link; null for a plain link */
                    variant?: string | null;
                }[];
                matchingRuleIds: string[];
            };
            at: string;
            decision_id: string;
            /** @description why the record could not be written whole (it could not be serialized): it keeps no request, masked paths or entity_data digest, and cannot be replayed */
            incomplete: string;
            key_id: string;
            position: components["schemas"]["Position"] | null;
        };
        Digest: {
            counts: {
                api_keys: number;
                contexts: number;
                prompt_versions: number;
                prompts: number;
                rules: number;
                secrets: number;
            };
            position: components["schemas"]["Position"] | null;
            /** @description SHA-256 of the canonical read models (positions excluded) */
            sha256: string;
        };
        DryRunExplanation: {
            /** @description a draft of the request, not a live rule */
            draft: boolean;
            /** @enum {string} */
            group_operator: "AND" | "OR";
            groups: {
                /** @enum {string} */
                condition_operator: "AND" | "OR";
                conditions: {
                    /** @enum {string} */
                    data_type: "string" | "number" | "boolean";
                    /** @description its result decided the verdict of the conditions (see docs/auditors.md#dry-run-evaluate) */
                    decisive: boolean;
                    field: string;
                    index: number;
                    /** @description the value the condition saw; null when absent */
                    input: string | number | boolean | null;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                    /** @enum {string} */
                    reason: "holds" | "field absent" | "not a number" | "not a boolean" | "comparison false" | "invalid condition";
                    result: boolean;
                    value: string;
                }[];
                /** @description its result decided the verdict of the conditions (see docs/auditors.md#dry-run-evaluate) */
                decisive: boolean;
                index: number;
                result: boolean;
            }[];
            matched: boolean;
            name: string;
            position: components["schemas"]["Position"] | null;
            /** @description why it did not match, in one line; null when it matched */
            reason: string | null;
            revision: components["schemas"]["Position"] | null;
            rule_id: string;
            /** @description only for a rule with splits: how each chose */
            splits?: {
                /** @description the value's bucket: (hash * total) >> 32; inside a rollout window the hash itself */
                bucket: number;
                bucket_by: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /** @description murmur3 x86 32-bit, seed 0, of the UTF-8 bytes of key then value, unsigned */
                hash: number | null;
                /** @description the rule key hashed before the value */
                key: string;
                /** @description with a schedule: how far into its window the request's time is */
                progress?: number;
                /** @description each variant's buckets, [from, to) */
                ranges: {
                    entity_id: string;
                    from: number;
                    to: number;
                    variant: string;
                }[];
                /** @enum {string} */
                reason: "SPLIT" | "DEFAULT";
                /** @description the total weight in force, or 2^32 inside a rollout window (the ranges are then on the hash) */
                total: number;
                /** @description the bucketing value as hashed (a number or boolean as its JSON text); null when the request lacks it */
                value: string | null;
                variant: string;
            }[];
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
        };
        DryRunRequest: {
            entity_inputs?: {
                /** @description the version a label names (`latest`, `production`, a custom one); not with version */
                label?: string;
                shouldCompile?: boolean;
                /** @description true: a render with variables missing is refused (compiled_prompt null, error naming them) */
                strict?: boolean;
                variables?: Record<string, never>;
                version?: string;
            } & {
                [key: string]: unknown;
            };
            /** @enum {string} */
            entity_type: "context" | "prompt" | "evaluation";
            /** @description at most RULEVAULT_MAX_FIELDS members; names and string values are length-limited; null is an absent field */
            fields: {
                [key: string]: string | number | boolean | null;
            };
            include_entity_data?: boolean;
            /** @description draft rules: each a rule create body (validated as one; a 400 names `rules[<index>]` and the member), with an optional `id` naming a live rule to put the draft in its place; without `id` the draft answers as `draft-<index>` */
            rules?: {
                condition_groups: {
                    /** @enum {string} */
                    condition_operator?: "AND" | "OR";
                    conditions: {
                        /** @enum {string} */
                        data_type?: "string" | "number" | "boolean";
                        field: string;
                        /** @enum {string} */
                        operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                        /** @description a number or boolean is stored as its JSON text */
                        value: string | number | boolean;
                    }[];
                }[];
                description?: string;
                /** @description a context or prompt named must exist; a PATCH checks only the links it adds and drops links to ones deleted since */
                entities?: {
                    entity_id: string;
                    /** @enum {string} */
                    entity_type: "context" | "prompt" | "evaluation";
                }[];
                /** @enum {string} */
                group_operator?: "AND" | "OR";
                id?: string;
                /** @description what its splits hash before the bucketing value (flagd's flag key); default the rule id; set at creation, never changed */
                key?: string;
                name: string;
                /** @description at most one per entity type; each variant names a link of the rule; `[]` (PATCH) takes every split away */
                splits?: {
                    /** @description the request field bucketed (as a condition names one); default `targetingKey` */
                    bucket_by?: string;
                    /** @enum {string} */
                    entity_type: "context" | "prompt" | "evaluation";
                    schedule?: {
                        /**
                         * Format: date-time
                         * @description after start
                         */
                        end: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601 with a zone; stored as UTC
                         */
                        start: string;
                        /** @description equal steps from start to end; absent: linear */
                        steps?: number;
                        /** @description every variant's weight from the end on, by name */
                        weights: {
                            [key: string]: number;
                        };
                    };
                    variants: {
                        /** @description a link of the rule of the split's type (a prompt: by id or name) */
                        entity_id: string;
                        /** @description a prompt variant only: the label whose version is rendered; not with version */
                        label?: string;
                        name: string;
                        /** @description a prompt variant only: the version rendered */
                        version?: string;
                        /** @description a whole number; a variant's share is its weight over the total (1 of 100000 is 0.001%) */
                        weight: number;
                    }[];
                }[];
                /** @enum {string} */
                status?: "ACTIVE" | "INACTIVE";
            }[];
        } & {
            [key: string]: unknown;
        };
        DryRunResponse: {
            /** @description the drafts in request order, with the rule id each answered as */
            drafts: {
                index: number;
                /** @description true when it took a live rule's place */
                replaces: boolean;
                rule_id: string;
            }[];
            entities: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /**
                 * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                 * @enum {string}
                 */
                reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                rule_id: string;
                /** @description the split variant that chose this link; null for a plain link */
                variant: string | null;
            }[];
            /** @description keyed `<entity_type>:<entity_id>`; `{}` for evaluations; null for a prompt version that does not exist */
            entity_data?: {
                [key: string]: components["schemas"]["ContextRecord"] | components["schemas"]["PromptRecord"] | null;
            };
            explain: components["schemas"]["DryRunExplanation"][];
            /** @description rules asked about but left out to keep the explanations within 1048576 bytes, sorted; name them in rule_ids to have them explained */
            explain_omitted_rule_ids: string[];
            matchingRuleIds: string[];
            /** @description the live log position the drafts were evaluated beside */
            position: components["schemas"]["Position"] | null;
        };
        EntityLink: {
            entity_id: string;
            /** @enum {string} */
            entity_type: "context" | "prompt" | "evaluation";
        };
        Error: {
            /**
             * @description bad_request 400, unauthorized 401, forbidden 403, not_found 404, conflict 409, protected 409 (the resource changes only through a change request), stale 409 (a change request's resource moved since it was drafted), payload_too_large 413, internal 500, unavailable 503 (not ready, or the vault cannot be opened); a code is never renamed
             * @enum {string}
             */
            code: "bad_request" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "protected" | "stale" | "payload_too_large" | "unavailable" | "internal";
            err: string;
        };
        EvaluateRequest: {
            entity_inputs?: {
                /** @description the version a label names (`latest`, `production`, a custom one); not with version */
                label?: string;
                shouldCompile?: boolean;
                /** @description true: a render with variables missing is refused (compiled_prompt null, error naming them) */
                strict?: boolean;
                variables?: Record<string, never>;
                version?: string;
            } & {
                [key: string]: unknown;
            };
            /** @enum {string} */
            entity_type: "context" | "prompt" | "evaluation";
            /** @description at most RULEVAULT_MAX_FIELDS members; names and string values are length-limited; null is an absent field */
            fields: {
                [key: string]: string | number | boolean | null;
            };
            include_entity_data?: boolean;
        } & {
            [key: string]: unknown;
        };
        EvaluateResponse: {
            entities: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /**
                 * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                 * @enum {string}
                 */
                reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                rule_id: string;
                /** @description the split variant that chose this link; null for a plain link */
                variant: string | null;
            }[];
            /** @description keyed `<entity_type>:<entity_id>`; `{}` for evaluations; null for a prompt version that does not exist */
            entity_data?: {
                [key: string]: components["schemas"]["ContextRecord"] | components["schemas"]["PromptRecord"] | null;
            };
            matchingRuleIds: string[];
        };
        EventMetadata: {
            actor: components["schemas"]["Actor"];
            at: components["schemas"]["Timestamp"];
            /** @description on an event a change request's apply wrote: that request's id */
            change_request?: string;
            request_id: string;
            schema?: number;
        };
        EvidenceFile: {
            chain: {
                first_seq: number;
                links: Record<string, never>[];
                prev: string;
            };
            /** @description the signed checkpoint event the chain ends at */
            checkpoint: Record<string, never>;
            created_at: components["schemas"]["Timestamp"];
            decision: {
                record: components["schemas"]["DecisionRecord"];
                sha256: string;
            };
            /** @description earlier checkpoints that endorse a next key */
            endorsements: Record<string, never>[];
            /** @description the events of the rules, entities and change requests the decision used, as `audit export` writes them */
            events: Record<string, never>[];
            /** @constant */
            format: "rulevault-evidence";
            /** @description the exporting node's limits, which the offline replay reads the request under */
            limits: Record<string, never>;
            version: number;
        };
        ExplainRequest: {
            entity_inputs?: {
                /** @description the version a label names (`latest`, `production`, a custom one); not with version */
                label?: string;
                shouldCompile?: boolean;
                /** @description true: a render with variables missing is refused (compiled_prompt null, error naming them) */
                strict?: boolean;
                variables?: Record<string, never>;
                version?: string;
            } & {
                [key: string]: unknown;
            };
            /** @enum {string} */
            entity_type: "context" | "prompt" | "evaluation";
            /** @description explain only those of the rules asked about with a condition on this field */
            field?: string;
            /** @description at most RULEVAULT_MAX_FIELDS members; names and string values are length-limited; null is an absent field */
            fields: {
                [key: string]: string | number | boolean | null;
            };
            include_entity_data?: boolean;
            /** @description rules to explain besides the matching ones, matched or not, ACTIVE or not; each must exist (400 otherwise) */
            rule_ids?: string[];
        } & {
            [key: string]: unknown;
        };
        ExplainResponse: {
            /** @description rules asked about but left out to keep the explanations within 1048576 bytes, sorted; name them in rule_ids to have them explained */
            omitted_rule_ids: string[];
            position: components["schemas"]["Position"] | null;
            rules: components["schemas"]["RuleExplanation"][];
        };
        GetCompiledAnswer: {
            err: null;
            res: {
                compiledPrompt: string | {
                    content: string;
                    role: string;
                }[];
                /** @description the version's config (model, temperature, tools, ...) as given; null when none */
                config: Record<string, never> | null;
                /** @description any JSON object; a `__proto__` key stays plain data */
                metaProperties: Record<string, never>;
                missingVariables: string[];
                name: string;
                prompt: string | {
                    content: string;
                    role: string;
                }[];
                promptId: string;
                tags: string[];
                /** @enum {string} */
                type: "text" | "chat";
                variables: string[];
                version: string;
                /** @description a name-based UUID of the prompt id and version */
                versionId: string;
            };
        } | {
            /**
             * @description bad_request 400, unauthorized 401, forbidden 403, not_found 404, conflict 409, protected 409 (the resource changes only through a change request), stale 409 (a change request's resource moved since it was drafted), payload_too_large 413, internal 500, unavailable 503 (not ready, or the vault cannot be opened); a code is never renamed
             * @enum {string}
             */
            code: "bad_request" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "protected" | "stale" | "payload_too_large" | "unavailable" | "internal";
            err: string;
            res: null;
        };
        GetCompiledRequest: {
            /** @description older OpenLIT SDKs' name of shouldCompile */
            compile?: boolean;
            id?: string;
            label?: string;
            name?: string;
            /** @description the same as id (OpenLIT's Python SDK sends this name) */
            promptId?: string;
            /** @description default false, as OpenLIT's */
            shouldCompile?: boolean;
            /** @description true: a render with variables missing is refused with err naming them */
            strict?: boolean;
            variables?: Record<string, never>;
            /** @description MAJOR.MINOR.PATCH, or a label (production, ...); default the latest */
            version?: string;
        } & {
            [key: string]: unknown;
        };
        GetSecretsAnswer: {
            err: null;
            /** @description secret key to plaintext value */
            res: {
                [key: string]: string;
            };
        } | {
            /**
             * @description bad_request 400, unauthorized 401, forbidden 403, not_found 404, conflict 409, protected 409 (the resource changes only through a change request), stale 409 (a change request's resource moved since it was drafted), payload_too_large 413, internal 500, unavailable 503 (not ready, or the vault cannot be opened); a code is never renamed
             * @enum {string}
             */
            code: "bad_request" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "protected" | "stale" | "payload_too_large" | "unavailable" | "internal";
            err: string;
            res: null;
        };
        GetSecretsRequest: {
            key?: string;
            tags?: string[];
        } & {
            [key: string]: unknown;
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        ImpactReport: {
            changed: number;
            changes: {
                at: components["schemas"]["Timestamp"];
                decision_id: string;
                entities: {
                    added: {
                        entity_id: string;
                        /** @enum {string} */
                        entity_type: "context" | "prompt" | "evaluation";
                        /**
                         * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                         * @enum {string}
                         */
                        reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                        rule_id: string;
                        /** @description the split variant that chose this link; null for a plain link */
                        variant: string | null;
                    }[];
                    removed: {
                        entity_id: string;
                        /** @enum {string} */
                        entity_type: "context" | "prompt" | "evaluation";
                        /**
                         * @description TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split's choice for a request without the bucketing field (the first variant with weight in force)
                         * @enum {string}
                         */
                        reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT";
                        rule_id: string;
                        /** @description the split variant that chose this link; null for a plain link */
                        variant: string | null;
                    }[];
                };
                rule_ids: {
                    added: string[];
                    removed: string[];
                };
                variants: {
                    after: string | null;
                    before: string | null;
                    rule_id: string;
                }[];
            }[];
            explain: {
                decision_id: string;
                /** @description rules asked about but left out to keep the explanations within 1048576 bytes, sorted; name them in rule_ids to have them explained */
                omitted_rule_ids: string[];
                rules: components["schemas"]["RuleExplanation"][];
            }[];
            incomplete: {
                count: number;
                decisions: {
                    decision_id: string;
                    why: string;
                }[];
            };
            max_decisions: number;
            not_replayed: {
                index: number;
                /** @enum {string} */
                op: "create" | "update" | "delete" | "add-version" | "move-label" | "remove-label" | "protect" | "unprotect" | "set-test-cases";
                resource: Record<string, never>;
                why: string;
            }[];
            read: number;
            replayed: number;
            touched_rule_ids: string[];
            /** @description reading stopped at max_decisions: older records of the window were not replayed */
            truncated: boolean;
            unchanged: number;
            unreproducible: {
                count: number;
                decisions: {
                    decision_id: string;
                    masked_fields: string[];
                }[];
            };
            window: {
                from: components["schemas"]["Timestamp"];
                to: components["schemas"]["Timestamp"];
            };
        };
        /** @description One item: `kind`, an optional `id` (a UUID; default a new one), and the create body of its route. A rule's context or prompt link names an existing id, or the id or name of an item earlier in the import (a prompt link also an existing prompt's name). */
        ImportItem: {
            condition_groups: {
                /** @enum {string} */
                condition_operator?: "AND" | "OR";
                conditions: {
                    /** @enum {string} */
                    data_type?: "string" | "number" | "boolean";
                    field: string;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                    /** @description a number or boolean is stored as its JSON text */
                    value: string | number | boolean;
                }[];
            }[];
            description?: string;
            /** @description a context or prompt named must exist; a PATCH checks only the links it adds and drops links to ones deleted since */
            entities?: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
            }[];
            /** @enum {string} */
            group_operator?: "AND" | "OR";
            id?: string;
            /** @description what its splits hash before the bucketing value (flagd's flag key); default the rule id; set at creation, never changed */
            key?: string;
            /** @constant */
            kind: "rule";
            name: string;
            /** @description at most one per entity type; each variant names a link of the rule; `[]` (PATCH) takes every split away */
            splits?: {
                /** @description the request field bucketed (as a condition names one); default `targetingKey` */
                bucket_by?: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                schedule?: {
                    /**
                     * Format: date-time
                     * @description after start
                     */
                    end: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601 with a zone; stored as UTC
                     */
                    start: string;
                    /** @description equal steps from start to end; absent: linear */
                    steps?: number;
                    /** @description every variant's weight from the end on, by name */
                    weights: {
                        [key: string]: number;
                    };
                };
                variants: {
                    /** @description a link of the rule of the split's type (a prompt: by id or name) */
                    entity_id: string;
                    /** @description a prompt variant only: the label whose version is rendered; not with version */
                    label?: string;
                    name: string;
                    /** @description a prompt variant only: the version rendered */
                    version?: string;
                    /** @description a whole number; a variant's share is its weight over the total (1 of 100000 is 0.001%) */
                    weight: number;
                }[];
            }[];
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
        } | {
            content: string;
            description?: string;
            id?: string;
            /** @constant */
            kind: "context";
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties?: Record<string, never>;
            name: string;
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
            tags?: string[];
        } | {
            /** @description any JSON object (model, temperature, tools, ...) of at most 16 KiB, stored and returned as given */
            config?: Record<string, never>;
            id?: string;
            /** @constant */
            kind: "prompt";
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties?: Record<string, never>;
            /** @description unique (exact, case-sensitive); 409 when taken */
            name: string;
            /** @description a template (a text prompt), or an ordered list of messages, each content a template (a chat prompt) */
            prompt: string | {
                /** @description a Handlebars template */
                content: string;
                role: string;
            }[];
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
            tags?: string[];
            version?: string;
        };
        ImportResult: {
            contexts: number;
            imported: number;
            items: {
                id: string;
                /** @enum {string} */
                kind: "rule" | "context" | "prompt";
                name: string;
            }[];
            position: components["schemas"]["Position"];
            prompts: number;
            rules: number;
        };
        NotReady: {
            /**
             * @description bad_request 400, unauthorized 401, forbidden 403, not_found 404, conflict 409, protected 409 (the resource changes only through a change request), stale 409 (a change request's resource moved since it was drafted), payload_too_large 413, internal 500, unavailable 503 (not ready, or the vault cannot be opened); a code is never renamed
             * @enum {string}
             */
            code: "bad_request" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "protected" | "stale" | "payload_too_large" | "unavailable" | "internal";
            err: string;
            position: components["schemas"]["Position"] | null;
        };
        /** @description a revision or log position, as a decimal string */
        Position: string;
        Prompt: {
            /** @description the version's config (model, temperature, tools, ...) as given; null when none */
            config: Record<string, never> | null;
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            id: string;
            /** @description each label (latest included) to the version it names */
            labels: {
                [key: string]: string;
            };
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties: Record<string, never>;
            name: string;
            position: components["schemas"]["Position"];
            prompt: string | {
                content: string;
                role: string;
            }[];
            revision: components["schemas"]["Position"];
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
            tags: string[];
            /** @enum {string} */
            type: "text" | "chat";
            updated_at: components["schemas"]["Timestamp"];
            variables: string[];
            version: string;
            versions: {
                created_at: components["schemas"]["Timestamp"];
                created_by: components["schemas"]["Actor"];
                labels: string[];
                version: string;
            }[];
        };
        PromptHistory: {
            events: {
                actor: components["schemas"]["Actor"];
                at: components["schemas"]["Timestamp"];
                data: Record<string, never>;
                metadata: components["schemas"]["EventMetadata"];
                position: components["schemas"]["Position"];
                request_id: string;
                revision: components["schemas"]["Position"];
                type: string;
            }[];
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
        };
        PromptInput: {
            /** @description any JSON object (model, temperature, tools, ...) of at most 16 KiB, stored and returned as given */
            config?: Record<string, never>;
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties?: Record<string, never>;
            /** @description unique (exact, case-sensitive); 409 when taken */
            name: string;
            /** @description a template (a text prompt), or an ordered list of messages, each content a template (a chat prompt) */
            prompt: string | {
                /** @description a Handlebars template */
                content: string;
                role: string;
            }[];
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
            tags?: string[];
            version?: string;
        };
        PromptLabelMove: {
            version: string;
        };
        PromptList: {
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
            prompts: components["schemas"]["Prompt"][];
        };
        PromptPatch: {
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties?: Record<string, never>;
            name?: string;
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
            tags?: string[];
        };
        PromptRecord: {
            /** @description the rendered template, or the chat with each content rendered (the raw one with shouldCompile false); null when rendering failed, passed a limit or was refused (strict), see error */
            compiled_prompt: string | {
                content: string;
                role: string;
            }[] | null;
            /** @description the version's config (model, temperature, tools, ...) as given; null when none */
            config: Record<string, never> | null;
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            /** @description present only when compiled_prompt is null: why, naming the limit passed (RULEVAULT_RENDER_MAX_STEPS, RULEVAULT_RENDER_MAX_BYTES, RULEVAULT_RESPONSE_MAX_RENDER_BYTES) or the variables missing (strict) */
            error?: string;
            id: string;
            /** @description any JSON object; a `__proto__` key stays plain data */
            meta_properties: Record<string, never>;
            missing_variables: string[];
            name: string;
            prompt: string | {
                content: string;
                role: string;
            }[];
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
            tags: string[];
            /** @enum {string} */
            type: "text" | "chat";
            updated_at: components["schemas"]["Timestamp"];
            variables: string[];
            version: string;
        };
        PromptVersionInput: {
            /** @description any JSON object (model, temperature, tools, ...) of at most 16 KiB, stored and returned as given */
            config?: Record<string, never>;
            /** @description a template (a text prompt), or an ordered list of messages, each content a template (a chat prompt) */
            prompt: string | {
                /** @description a Handlebars template */
                content: string;
                role: string;
            }[];
            version?: string;
        };
        Protection: {
            protected_at: components["schemas"]["Timestamp"];
            protected_by: components["schemas"]["Actor"];
            resource: components["schemas"]["ResourceRef"];
        };
        ProtectionInput: {
            resource: components["schemas"]["ResourceRefInput"];
        };
        ProtectionList: {
            protections: components["schemas"]["Protection"][];
        };
        Ready: {
            /** @description only while an erasure committed has later steps left (a checkpoint of the WAL, the snapshot's rewrite): retried until done */
            erasure?: {
                attempts: number;
                pending: ("store" | "snapshot")[];
                reason: string;
                since: components["schemas"]["Timestamp"];
            };
            position: components["schemas"]["Position"] | null;
            /** @constant */
            status: "ready";
        };
        ReasonInput: {
            reason?: string;
        };
        /** @description a rule, context or prompt (a prompt also by name when given), or one label of a prompt (`prompt-label`, with `label`); a change may also name the test-case set, `{"type": "test-cases", "id": "default"}` (never protected: it is always under change control) */
        ResourceRef: {
            id: string;
            label?: string;
            /** @enum {string} */
            type: "rule" | "context" | "prompt" | "prompt-label" | "test-cases";
        };
        ResourceRefInput: {
            id?: string;
            label?: string;
            /** @enum {string} */
            type: "rule" | "context" | "prompt" | "prompt-label";
        };
        Rule: {
            condition_groups: {
                /** @enum {string} */
                condition_operator: "AND" | "OR";
                conditions: {
                    /** @enum {string} */
                    data_type: "string" | "number" | "boolean";
                    field: string;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                    value: string;
                }[];
            }[];
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            description: string;
            entities: components["schemas"]["EntityLink"][];
            /** @enum {string} */
            group_operator: "AND" | "OR";
            id: string;
            key: string;
            name: string;
            position: components["schemas"]["Position"];
            revision: components["schemas"]["Position"];
            splits: {
                /** @description the request field bucketed (as a condition names one); default `targetingKey` */
                bucket_by: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                schedule?: {
                    /**
                     * Format: date-time
                     * @description after start
                     */
                    end: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601 with a zone; stored as UTC
                     */
                    start: string;
                    /** @description equal steps from start to end; absent: linear */
                    steps?: number;
                    /** @description every variant's weight from the end on, by name */
                    weights: {
                        [key: string]: number;
                    };
                };
                variants: {
                    entity_id: string;
                    label?: string;
                    name: string;
                    version?: string;
                    /** @description a whole number; a variant's share is its weight over the total (1 of 100000 is 0.001%) */
                    weight: number;
                }[];
            }[];
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
            updated_at: components["schemas"]["Timestamp"];
        };
        RuleExplanation: {
            /** @enum {string} */
            group_operator: "AND" | "OR";
            groups: {
                /** @enum {string} */
                condition_operator: "AND" | "OR";
                conditions: {
                    /** @enum {string} */
                    data_type: "string" | "number" | "boolean";
                    field: string;
                    index: number;
                    /** @description the value the condition saw; null when absent */
                    input: string | number | boolean | null;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                    /** @enum {string} */
                    reason: "holds" | "field absent" | "not a number" | "not a boolean" | "comparison false" | "invalid condition";
                    result: boolean;
                    value: string;
                }[];
                index: number;
                result: boolean;
            }[];
            matched: boolean;
            name: string;
            position: components["schemas"]["Position"];
            /** @description why it did not match, in one line; null when it matched */
            reason: string | null;
            revision: components["schemas"]["Position"];
            rule_id: string;
            /** @description only for a rule with splits: how each chose */
            splits?: {
                /** @description the value's bucket: (hash * total) >> 32; inside a rollout window the hash itself */
                bucket: number;
                bucket_by: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                /** @description murmur3 x86 32-bit, seed 0, of the UTF-8 bytes of key then value, unsigned */
                hash: number | null;
                /** @description the rule key hashed before the value */
                key: string;
                /** @description with a schedule: how far into its window the request's time is */
                progress?: number;
                /** @description each variant's buckets, [from, to) */
                ranges: {
                    entity_id: string;
                    from: number;
                    to: number;
                    variant: string;
                }[];
                /** @enum {string} */
                reason: "SPLIT" | "DEFAULT";
                /** @description the total weight in force, or 2^32 inside a rollout window (the ranges are then on the hash) */
                total: number;
                /** @description the bucketing value as hashed (a number or boolean as its JSON text); null when the request lacks it */
                value: string | null;
                variant: string;
            }[];
            /** @enum {string} */
            status: "ACTIVE" | "INACTIVE";
        };
        RuleHistory: {
            events: {
                actor: components["schemas"]["Actor"];
                at: components["schemas"]["Timestamp"];
                /** @description the rule members this event changed */
                changes: {
                    [key: string]: {
                        after: unknown;
                        before: unknown;
                    };
                };
                data: Record<string, never>;
                metadata: components["schemas"]["EventMetadata"];
                position: components["schemas"]["Position"];
                request_id: string;
                revision: components["schemas"]["Position"];
                type: string;
            }[];
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
        };
        RuleInput: {
            condition_groups: {
                /** @enum {string} */
                condition_operator?: "AND" | "OR";
                conditions: {
                    /** @enum {string} */
                    data_type?: "string" | "number" | "boolean";
                    field: string;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                    /** @description a number or boolean is stored as its JSON text */
                    value: string | number | boolean;
                }[];
            }[];
            description?: string;
            /** @description a context or prompt named must exist; a PATCH checks only the links it adds and drops links to ones deleted since */
            entities?: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
            }[];
            /** @enum {string} */
            group_operator?: "AND" | "OR";
            /** @description what its splits hash before the bucketing value (flagd's flag key); default the rule id; set at creation, never changed */
            key?: string;
            name: string;
            /** @description at most one per entity type; each variant names a link of the rule; `[]` (PATCH) takes every split away */
            splits?: {
                /** @description the request field bucketed (as a condition names one); default `targetingKey` */
                bucket_by?: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                schedule?: {
                    /**
                     * Format: date-time
                     * @description after start
                     */
                    end: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601 with a zone; stored as UTC
                     */
                    start: string;
                    /** @description equal steps from start to end; absent: linear */
                    steps?: number;
                    /** @description every variant's weight from the end on, by name */
                    weights: {
                        [key: string]: number;
                    };
                };
                variants: {
                    /** @description a link of the rule of the split's type (a prompt: by id or name) */
                    entity_id: string;
                    /** @description a prompt variant only: the label whose version is rendered; not with version */
                    label?: string;
                    name: string;
                    /** @description a prompt variant only: the version rendered */
                    version?: string;
                    /** @description a whole number; a variant's share is its weight over the total (1 of 100000 is 0.001%) */
                    weight: number;
                }[];
            }[];
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
        };
        RuleList: {
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
            rules: components["schemas"]["Rule"][];
        };
        RulePatch: {
            condition_groups?: {
                /** @enum {string} */
                condition_operator?: "AND" | "OR";
                conditions: {
                    /** @enum {string} */
                    data_type?: "string" | "number" | "boolean";
                    field: string;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                    /** @description a number or boolean is stored as its JSON text */
                    value: string | number | boolean;
                }[];
            }[];
            description?: string;
            /** @description a context or prompt named must exist; a PATCH checks only the links it adds and drops links to ones deleted since */
            entities?: {
                entity_id: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
            }[];
            /** @enum {string} */
            group_operator?: "AND" | "OR";
            /** @description what its splits hash before the bucketing value (flagd's flag key); default the rule id; set at creation, never changed */
            key?: string;
            name?: string;
            /** @description at most one per entity type; each variant names a link of the rule; `[]` (PATCH) takes every split away */
            splits?: {
                /** @description the request field bucketed (as a condition names one); default `targetingKey` */
                bucket_by?: string;
                /** @enum {string} */
                entity_type: "context" | "prompt" | "evaluation";
                schedule?: {
                    /**
                     * Format: date-time
                     * @description after start
                     */
                    end: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601 with a zone; stored as UTC
                     */
                    start: string;
                    /** @description equal steps from start to end; absent: linear */
                    steps?: number;
                    /** @description every variant's weight from the end on, by name */
                    weights: {
                        [key: string]: number;
                    };
                };
                variants: {
                    /** @description a link of the rule of the split's type (a prompt: by id or name) */
                    entity_id: string;
                    /** @description a prompt variant only: the label whose version is rendered; not with version */
                    label?: string;
                    name: string;
                    /** @description a prompt variant only: the version rendered */
                    version?: string;
                    /** @description a whole number; a variant's share is its weight over the total (1 of 100000 is 0.001%) */
                    weight: number;
                }[];
            }[];
            /** @enum {string} */
            status?: "ACTIVE" | "INACTIVE";
        };
        Secret: {
            created_at: components["schemas"]["Timestamp"];
            created_by: components["schemas"]["Actor"];
            id: string;
            key: string;
            position: components["schemas"]["Position"];
            revision: components["schemas"]["Position"];
            tags: string[];
            updated_at: components["schemas"]["Timestamp"];
            version: number;
        };
        SecretInput: {
            key: string;
            tags?: string[];
            value: string;
        };
        SecretList: {
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
            secrets: components["schemas"]["Secret"][];
        };
        SecretPatch: {
            key?: string;
            tags?: string[];
            value?: string;
        };
        SecretReadPage: {
            /** @description pass as `cursor` for the next page; null when this page is the last (always null without `limit`) */
            next_cursor: string | null;
            reads: {
                at: string;
                /** @description the error code answered; null when the outcome is ok */
                code: ("bad_request" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "protected" | "stale" | "payload_too_large" | "unavailable" | "internal") | null;
                /** @description the API key that called; null when the call named none that exists */
                key_id: string | null;
                /**
                 * @description ok: answered (`err` null); error: answered `err` with `code`
                 * @enum {string}
                 */
                outcome: "ok" | "error";
                /** @description a UUID version 7 */
                read_id: string;
                /** @description the X-Request-Id of the read */
                request_id: string | null;
                /** @description the secrets returned; never a value */
                secrets: {
                    id: string;
                    key: string;
                    value_version: number;
                    version: number;
                }[];
            }[];
        };
        SetDifference: {
            only_recorded: string[];
            only_replayed: string[];
        };
        SignedCheckpoint: {
            /** @description the chain's hash at `seq` */
            hash: string;
            key_id: string;
            /** @description the checkpoint event's own position */
            position: components["schemas"]["Position"];
            public_key: string;
            /** @description the chain sequence it signs */
            seq: number;
            /** @description base64 Ed25519 signature of `rulevault-chain-checkpoint-v1\n<seq>\n<hash>\n` */
            signature: string;
        };
        TestCaseSet: {
            cases: Record<string, never>[];
            /** @description the applied change request that set it */
            change_request: string | null;
            count: number;
            revision: components["schemas"]["Position"] | null;
            set_at: components["schemas"]["Timestamp"] | null;
            set_by: components["schemas"]["Actor"] | null;
            /** @description NDJSON, one case a line (docs/decisions/0066-test-case-files.md); empty: no cases */
            text: string;
        };
        TestResults: {
            cases: {
                diff?: {
                    entities?: {
                        missing: string[];
                        unexpected: string[];
                    };
                    rules?: {
                        missing: string[];
                        unexpected: string[];
                    };
                    variants?: {
                        actual: string | null;
                        expected: string | null;
                        rule_id: string;
                    }[];
                };
                error?: string;
                line: number;
                name: string;
                pass: boolean;
            }[];
            failed: number;
            passed: number;
            /**
             * @description request: the cases its set-test-cases proposes; current: the node's set
             * @enum {string}
             */
            source: "request" | "current";
            test_cases_revision: components["schemas"]["Position"] | null;
        };
        /** Format: date-time */
        Timestamp: string;
        Whoami: {
            /** @description the key id (`env-admin` for RULEVAULT_ADMIN_KEY): the actor of its writes */
            id: string;
            name: string;
            scopes: ("evaluate" | "secrets:read" | "explain" | "admin" | "approve" | "break-glass")[];
            /** @description non-empty: the key reads only secrets carrying one of these tags */
            secret_tags: string[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listApiKeys: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
                /** @description a case-insensitive substring of the name or id */
                q?: string;
                /** @description only keys holding this scope */
                scope?: "evaluate" | "secrets:read" | "explain" | "admin" | "approve" | "break-glass";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every live key, by id */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyInput"];
            };
        };
        responses: {
            /** @description the key record and the key */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyCreated"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
            };
            path: {
                /** @description the API key id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditChain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChainStatus"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditChainCheckpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description the checkpoint */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignedCheckpoint"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditChainVerify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ChainVerifyRequest"];
            };
        };
        responses: {
            /** @description the status, the run started or joined */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChainStatus"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditDecision: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the decision id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the decision record, or the stand-in written for one that could not be serialized */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecisionRecord"] | components["schemas"]["DecisionStandIn"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditDecisionEvidence: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the decision id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file, as a download (`Content-Disposition: attachment; filename=evidence-<id>.json`); the same bytes the CLI writes but `created_at` */
            200: {
                headers: {
                    /** @description `attachment; filename=evidence-<id>.json` */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvidenceFile"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditDecisionReplay: {
        parameters: {
            query?: {
                /** @description replay here instead: a log position, an ISO 8601 time with a zone, or `head` (the log now) */
                as_of?: string;
            };
            header?: never;
            path: {
                /** @description the decision id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the replay and the differences */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecisionReplay"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditDigest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the digest */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Digest"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditEvaluate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuditEvaluateRequest"];
            };
        };
        responses: {
            /** @description the answer as of that point */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEvaluateResponse"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditEvents: {
        parameters: {
            query?: {
                /** @description exact metadata.actor */
                actor?: string;
                /** @description the `next` of the previous page */
                after?: components["schemas"]["Position"];
                /** @description the `next_cursor` of the previous page (instead of `after`) */
                cursor?: string;
                /** @description ISO 8601 time with a zone, inclusive, on metadata.at */
                from?: string;
                /** @description events per page, 1 to 1000 (default 100) */
                limit?: string;
                /** @description a stream name, or a prefix ending in `-` or `*` (`rule-`) */
                stream?: string;
                /** @description ISO 8601 time with a zone, inclusive, on metadata.at */
                to?: string;
                /** @description an event type, or several separated by commas */
                type?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPage"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditSecretReads: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page */
                cursor?: string;
                /** @description ISO 8601 time with a zone, inclusive */
                from?: string;
                /** @description the API key id that read */
                key_id?: string;
                /** @description reads per page, 1 to 1000 (default 100) */
                limit?: string;
                /** @description ok: calls answered; error: calls refused or failed */
                outcome?: "ok" | "error";
                /** @description a secret's id or key: reads that returned it */
                secret?: string;
                /** @description ISO 8601 time with a zone, inclusive */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretReadPage"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listChangeRequests: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
                /** @description draft, in_review, approved, applied, rejected, withdrawn or stale */
                state?: "draft" | "in_review" | "approved" | "applied" | "rejected" | "withdrawn" | "stale";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the requests */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestList"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangeRequestInput"];
            };
        };
        responses: {
            /** @description the draft */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getChangeRequest: {
        parameters: {
            query?: {
                /** @description the request as it was at this log position or ISO 8601 time with a zone (as audit evaluate takes it); the answer adds `as_of: {position, at}` */
                as_of?: string;
            };
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the request with each change's `before`; its ETag is what an approval names in If-Match. With `as_of`: as it was then, without `before` and without an ETag */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestRead"] | components["schemas"]["ChangeRequestAsOf"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reviseChangeRequest: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
            };
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangeRequestPatch"];
            };
        };
        responses: {
            /** @description the request */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    applyChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the request */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    approveChangeRequest: {
        parameters: {
            query?: never;
            header: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match": string;
            };
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ApprovalInput"];
            };
        };
        responses: {
            /** @description the request */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    commentChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CommentInput"];
            };
        };
        responses: {
            /** @description the request */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changeRequestHistory: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
            };
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description its events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequestHistory"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changeRequestImpact: {
        parameters: {
            query?: {
                /** @description start of the window, an ISO 8601 time with a zone (default: 7 days before until) */
                since?: string;
                /** @description end of the window, an ISO 8601 time with a zone (default: now) */
                until?: string;
            };
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the impact report */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImpactReport"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rejectChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ReasonInput"];
            };
        };
        responses: {
            /** @description the request */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revertChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the request */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    submitChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the request */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changeRequestTestResults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description each case, passed or failed with its diff */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResults"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    withdrawChangeRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the change request id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ReasonInput"];
            };
        };
        responses: {
            /** @description the request */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeRequest"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listContexts: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
                /** @description a case-insensitive substring of the name, description or id */
                q?: string;
                /** @description `active` or `inactive` (any letter case) */
                status?: string;
                /** @description only those carrying this tag */
                tag?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the live contexts that pass the filters, by id (one page with limit) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextList"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createContext: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ContextInput"];
            };
        };
        responses: {
            /** @description the context */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Context"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getContext: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the context id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the context */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Context"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteContext: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the context id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateContext: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the context id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ContextPatch"];
            };
        };
        responses: {
            /** @description the context */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Context"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    importItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImportItem"][];
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description the items created, in the order given */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportResult"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCompiledPrompt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GetCompiledRequest"];
            };
        };
        responses: {
            /** @description `{err: null, res}` or `{err, res: null}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetCompiledAnswer"];
                };
            };
            /** @description the browser Origin is not allowed (the request is not executed) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPrompts: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
                /** @description a case-insensitive substring of the name or id */
                q?: string;
                /** @description `active` or `inactive` (any letter case) */
                status?: string;
                /** @description only those carrying this tag */
                tag?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the live prompts that pass the filters, by id (one page with limit) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PromptList"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPrompt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PromptInput"];
            };
        };
        responses: {
            /** @description the prompt */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPrompt: {
        parameters: {
            query?: {
                label?: string;
                version?: string;
            };
            header?: never;
            path: {
                /** @description the prompt id, or its name */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the prompt */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePrompt: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the prompt id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updatePrompt: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the prompt id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PromptPatch"];
            };
        };
        responses: {
            /** @description the prompt */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    promptHistory: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
            };
            header?: never;
            path: {
                /** @description the prompt id, or its name */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the history, oldest first (one page with limit) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PromptHistory"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    movePromptLabel: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the prompt id, or its name */
                id: string;
                /** @description production or a custom label */
                label: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PromptLabelMove"];
            };
        };
        responses: {
            /** @description the prompt at its latest version */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removePromptLabel: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the prompt id, or its name */
                id: string;
                /** @description production or a custom label */
                label: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the prompt at its latest version */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addPromptVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the prompt id, or its name */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PromptVersionInput"];
            };
        };
        responses: {
            /** @description the prompt at its new version */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listProtections: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every protection, by resource */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectionList"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    protect: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProtectionInput"];
            };
        };
        responses: {
            /** @description the protection */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Protection"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unprotect: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dryRun: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DryRunRequest"];
            };
        };
        responses: {
            /** @description evaluate's answer over live rules and drafts, with explanations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DryRunResponse"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    evaluate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EvaluateRequest"];
            };
        };
        responses: {
            /** @description the matches */
            200: {
                headers: {
                    /** @description the answer's decision_id (a UUID version 7); with decision logging on and the answer sampled, GET /api/audit/decisions/{id} shows its record. Without an X-Request-Id from the caller it is the request id too, and the answer carries no X-Request-Id */
                    "RuleVault-Decision-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvaluateResponse"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    explain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExplainRequest"];
            };
        };
        responses: {
            /** @description the explanations, by rule id */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExplainResponse"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRules: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description only rules linking this entity id */
                entity_id?: string;
                /** @description only rules linking an entity of this type (with entity_id: that entity) */
                entity_type?: "context" | "prompt" | "evaluation";
                /** @description only rules with a condition on this field (with operator: one condition has both) */
                field?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
                /** @description only rules with a condition using this operator */
                operator?: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "regex" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "between";
                /** @description a case-insensitive substring of the name, description or id */
                q?: string;
                /** @description `active` or `inactive` (any letter case) */
                status?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the live rules that pass the filters, by id (one page with limit) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuleList"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuleInput"];
            };
        };
        responses: {
            /** @description the rule */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the rule id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the rule */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteRule: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the rule id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateRule: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
                /** @description the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event */
                "RuleVault-Break-Glass"?: string;
            };
            path: {
                /** @description the rule id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RulePatch"];
            };
        };
        responses: {
            /** @description the rule */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    ruleHistory: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
            };
            header?: never;
            path: {
                /** @description the rule id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the history, oldest first (one page with limit) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuleHistory"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changeStream: {
        parameters: {
            query?: {
                /** @description `patch`: an entity the subscriber holds comes as a patch of what changed (`change.patch`, a prompt's new versions as `versions_added`); `records` (the default): every changed record whole */
                changes?: "records" | "patch";
            };
            header?: {
                /** @description the position to resume after */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTestCases: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the set (empty before the first) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestCaseSet"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["GetSecretsRequest"];
            };
        };
        responses: {
            /** @description `{err: null, res}` or `{err, res: null}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetSecretsAnswer"];
                };
            };
            /** @description the browser Origin is not allowed (the request is not executed) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSecrets: {
        parameters: {
            query?: {
                /** @description the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400) */
                cursor?: string;
                /** @description items per page, 1 to 1000; absent: every remaining item (one page) */
                limit?: string;
                /** @description a case-insensitive substring of the key or id */
                q?: string;
                /** @description only those carrying this tag */
                tag?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the live secrets that pass the filters, by id (one page with limit) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretList"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecretInput"];
            };
        };
        responses: {
            /** @description the secret */
            201: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Secret"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
            };
            path: {
                /** @description the secret id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on */
                "If-Match"?: string;
            };
            path: {
                /** @description the secret id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecretPatch"];
            };
        };
        responses: {
            /** @description the secret */
            200: {
                headers: {
                    /** @description the resource's revision as a strong entity tag, `"<revision>"`; If-Match takes it back */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Secret"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such resource (or it is deleted) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision's evidence yet, or (code protected) the resource is protected, or (code stale) a change request's resource moved */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    whoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Whoami"];
                };
            };
            /** @description The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    console: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the console page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description redirect from /console to /console/, so the page finds its assets */
            301: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description the console is not built (npm run build builds it) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    docs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the Swagger UI page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description redirect from /docs to /docs/, so the page finds its assets */
            301: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description serving */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    ofrepEvaluateFlags: {
        parameters: {
            query?: never;
            header?: {
                /** @description an ETag of an earlier answer (or a list, or `*`) */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    context?: {
                        targetingKey?: string;
                    } & {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description every flag's answer */
            200: {
                headers: {
                    /** @description a strong entity tag of the answer's bytes */
                    ETag?: string;
                    /** @description the decision ids of the evaluates the answer ran, comma-separated, one per entity type its flags asked for (docs/openfeature.md#decisions) */
                    "RuleVault-Decision-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        flags: ({
                            key: string;
                            metadata: {
                                /** @description the log position that answered (empty for the empty log) */
                                position: string;
                                /** @description the rule's revision */
                                revision: number;
                                rule_id: string;
                            };
                            /** @enum {string} */
                            reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT" | "DISABLED";
                            /** @description absent: the caller's code default (OFREP ADR 0006) */
                            value?: boolean | string | Record<string, never>;
                            variant?: string;
                        } | {
                            /** @enum {string} */
                            errorCode: "TARGETING_KEY_MISSING";
                            errorDetails: string;
                            key: string;
                        })[];
                        metadata: {
                            /** @description the log position that answered */
                            position: string;
                        };
                    };
                };
            };
            /** @description the answer is the one If-None-Match names: no body */
            304: {
                headers: {
                    /** @description the same tag */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PARSE_ERROR or INVALID_CONTEXT: the context cannot be read */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "PARSE_ERROR" | "INVALID_CONTEXT" | "TARGETING_KEY_MISSING";
                        errorDetails: string;
                    };
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                    };
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                    };
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                    };
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                    };
                };
            };
        };
    };
    ofrepEvaluateFlag: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the rule's key, or `<key>:<entity type>` for an object flag */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    context?: {
                        targetingKey?: string;
                    } & {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description the flag's answer */
            200: {
                headers: {
                    /** @description the decision id of the evaluate it ran (none for DISABLED, which evaluates nothing) */
                    "RuleVault-Decision-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        key: string;
                        metadata: {
                            /** @description the log position that answered (empty for the empty log) */
                            position: string;
                            /** @description the rule's revision */
                            revision: number;
                            rule_id: string;
                        };
                        /** @enum {string} */
                        reason: "TARGETING_MATCH" | "SPLIT" | "DEFAULT" | "DISABLED";
                        /** @description absent: the caller's code default (OFREP ADR 0006) */
                        value?: boolean | string | Record<string, never>;
                        variant?: string;
                    };
                };
            };
            /** @description PARSE_ERROR (the body is not JSON `{"context": {...}}`), INVALID_CONTEXT (an array, a field past a limit, a name twice) or TARGETING_KEY_MISSING (a split flag without its bucketing field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "PARSE_ERROR" | "INVALID_CONTEXT" | "TARGETING_KEY_MISSING";
                        errorDetails: string;
                        key: string;
                    };
                };
            };
            /** @description No API key, or the key is unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                        key: string;
                    };
                };
            };
            /** @description The key lacks the scope, or the browser Origin is not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                        key: string;
                    };
                };
            };
            /** @description FLAG_NOT_FOUND: no rule has the key, or it links no entity of the type */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "FLAG_NOT_FOUND" | "GENERAL";
                        errorDetails: string;
                        key: string;
                    };
                };
            };
            /** @description The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                        key: string;
                    };
                };
            };
            /** @description The read models are still catching up with the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        errorCode: "GENERAL";
                        errorDetails: string;
                        key: string;
                    };
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the OpenAPI 3.1 document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        openapi: "3.1.0";
                        paths: Record<string, never>;
                    };
                };
            };
        };
    };
    ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            /** @description still replaying the log */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotReady"];
                };
            };
        };
    };
}
