/**
 * Alert subscriptions get a name, unique among one user's subscriptions: the identity configuration as code
 * (`service-cli apply`) finds a subscription by. Existing ones are named after their channel and id.
 */
export default `
ALTER TABLE alert_subscriptions ADD COLUMN IF NOT EXISTS name text;
UPDATE alert_subscriptions SET name = channel || '-' || id WHERE name IS NULL;
ALTER TABLE alert_subscriptions ALTER COLUMN name SET NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS alert_subscriptions_user_name ON alert_subscriptions (user_id, lower(name));
`;
