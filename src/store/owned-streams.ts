/**
 * The name prefixes of the streams RuleVault owns. A shared EventStoreDB holds
 * other services' streams too, and the adapter filters by these; they are names
 * only (what the events in them mean is src/events' business, which builds its
 * stream names on them), so they live at the store's layer.
 */
export const STREAM_PREFIXES = ['rule-', 'context-', 'prompt-', 'secret-', 'apikey-', 'vault-keyring', 'chain-checkpoints', 'change-request-', 'protections', 'test-cases'] as const;
