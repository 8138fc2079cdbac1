/** The Cron Trigger of the webhook sweep (wrangler.toml [triggers]); the other one prunes the audit trail. */
export const WEBHOOK_SWEEP_CRON = "* * * * *";
