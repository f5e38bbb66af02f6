/**
 * A `targetSystem` (contract §4.1): a GitHub `owner/repo`. Intents name one; a connector serves one.
 */
export const TARGET_SYSTEM_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$';
