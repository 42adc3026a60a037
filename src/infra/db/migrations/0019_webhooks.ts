// Webhooks (issue 15): each app's endpoint, the delivery state of every event, and the log of every attempt.
//
// `webhook_endpoints`: one row per app that has configured one (Build, Webhooks). The signing secret is stored sealed
// with a key derived from the service secret (it must be read to sign, so it cannot be hashed); during a rotation the
// previous secret signs too, until `previous_secret_expires_at`. `disabled_reason` = 'gone' when an attempt was
// answered 410 Gone (the endpoint stays off until an operator enables it again).
// `outbox_events` gains its delivery state: `status` pending (an attempt is due) / delivered / failed / skipped (no
// enabled endpoint wanted it when it happened), the attempts of the current cycle, and `delivery_cycle`, which a
// redelivery increments so that a job of an earlier cycle still queued does nothing.
// `webhook_attempts`: every attempt: when, where, the answer's status, latency and first bytes, or the error.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhook_endpoints', (t) => {
    t.text('app_id').primary().references('id').inTable('apps');
    t.text('url'); // null: none configured
    t.boolean('enabled').notNullable().defaultTo(false);
    t.specificType('events', 'text[]').notNullable().defaultTo('{}');
    t.binary('secret_sealed');
    t.text('secret_prefix');
    t.binary('previous_secret_sealed');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await db.schema.alterTable('outbox_events', (t) => {
    t.text('status').notNullable().defaultTo('skipped');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('delivery_cycle').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.integer('last_status_code');
    t.text('last_error');
  });
  await db.raw(
    `alter table outbox_events add constraint outbox_events_status_check
     check (status in ('pending', 'delivered', 'failed', 'skipped'))`,
  );
  await db.raw('drop index if exists outbox_events_undelivered');
  await db.raw('create index outbox_events_app_status on outbox_events (app_id, status, created_at desc, id desc)');
  await db.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.text('event_id').notNullable().references('id').inTable('outbox_events');
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.integer('attempt').notNullable(); // 1-based, within the event's delivery cycle
    t.text('url').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.integer('status_code'); // null: no answer (refused, time-out, connection error)
    t.integer('latency_ms').notNullable();
    t.text('error'); // why it failed; null on success
    t.text('response_excerpt'); // the answer's first bytes, as text
    t.index(['event_id', 'attempted_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webhook_attempts');
  await db.raw('drop index if exists outbox_events_app_status');
  await db.raw('alter table outbox_events drop constraint outbox_events_status_check');
  await db.schema.alterTable('outbox_events', (t) => {
    t.dropColumn('status');
    t.dropColumn('attempts');
    t.dropColumn('delivery_cycle');
    t.dropColumn('next_attempt_at');
    t.dropColumn('last_status_code');
    t.dropColumn('last_error');
  });
  await db.raw('create index outbox_events_undelivered on outbox_events (created_at) where delivered_at is null');
  await db.schema.dropTable('webhook_endpoints');
}
