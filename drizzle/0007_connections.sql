-- Connections and connection types (issue 9). Written by hand; src/db/schema/connections.ts
-- describes the same tables (test/integration/schema.test.ts compares them).
CREATE TABLE `connection_types` (
	`id` text PRIMARY KEY NOT NULL,
	`connector_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`type` text NOT NULL,
	`sub_storage_type` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`disabled_message` text,
	`min_supported_version` text,
	`max_supported_version` text,
	`on_premise` integer DEFAULT false NOT NULL,
	`parameters` text DEFAULT '[]' NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connection_types_name_unique` ON `connection_types` (`name`);--> statement-breakpoint
CREATE INDEX `connection_types_storage` ON `connection_types` (`type`,`sub_storage_type`);--> statement-breakpoint
CREATE TABLE `connection_type_accounts` (
	`type_id` text NOT NULL,
	`account_id` text NOT NULL,
	PRIMARY KEY(`type_id`, `account_id`),
	FOREIGN KEY (`type_id`) REFERENCES `connection_types`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connection_type_accounts_account` ON `connection_type_accounts` (`account_id`);--> statement-breakpoint
CREATE TABLE `connections` (
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`connection_type_id` text NOT NULL,
	`parameters` text DEFAULT '[]' NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`folder_id` text,
	`creating_user_name` text NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	PRIMARY KEY(`account_id`, `id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`connection_type_id`) REFERENCES `connection_types`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_account_name_unique` ON `connections` (`account_id`,`name`);--> statement-breakpoint
CREATE INDEX `connections_type` ON `connections` (`connection_type_id`);--> statement-breakpoint
CREATE TABLE `connection_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "connection_missing" CHECK(`reason` <> 'connection_missing'),
	CONSTRAINT "connection_in_use" CHECK(`reason` <> 'connection_in_use'),
	CONSTRAINT "connection_type_changed" CHECK(`reason` <> 'connection_type_changed'),
	CONSTRAINT "connection_folder_missing" CHECK(`reason` <> 'connection_folder_missing'),
	CONSTRAINT "connection_guard_reason" CHECK(`reason` IN ('connection_missing', 'connection_in_use', 'connection_type_changed', 'connection_folder_missing'))
);
--> statement-breakpoint
-- Deleting a connection asks whether sources use it; sources name their connection in their account.
CREATE INDEX `sources_connection` ON `sources` (`account_id`,`connection_id`);--> statement-breakpoint
-- The built-in connection types: one per connector, generated from its parameter descriptors
-- (domain/connectors/built-in-types.ts; test/integration/connection-types.test.ts checks that these
-- rows are what it generates).
INSERT INTO `connection_types` (`id`, `connector_id`, `name`, `description`, `type`, `sub_storage_type`, `parameters`, `created_by_user_id`, `created_date`, `last_modified_by_user_id`, `last_modified_date`) VALUES
  ('postgresql', 'postgresql', 'PostgreSQL', 'A PostgreSQL database reached over TCP from the Worker, with optional TLS.', 'POSTGRESQL', 'POSTGRESQL', '[{"key":"host","label":"Host","valueType":"STRING","required":true,"values":[],"visible":true,"sequenceNumber":0,"helper":"Host name or IP address of the PostgreSQL server.","userAttribute":false,"requireValidation":true},{"key":"port","label":"Port","valueType":"INTEGER","required":false,"values":[],"visible":true,"sequenceNumber":1,"helper":null,"userAttribute":false,"requireValidation":false},{"key":"database","label":"Database","valueType":"STRING","required":true,"values":[],"visible":true,"sequenceNumber":2,"helper":null,"userAttribute":false,"requireValidation":true},{"key":"user","label":"User","valueType":"STRING","required":true,"values":[],"visible":true,"sequenceNumber":3,"helper":"A role that may read the data; a read-only role is best.","userAttribute":false,"requireValidation":true},{"key":"password","label":"Password","valueType":"PASSWORD","required":false,"values":[],"visible":true,"sequenceNumber":4,"helper":null,"userAttribute":false,"requireValidation":true},{"key":"sslmode","label":"TLS mode","valueType":"STRING","required":false,"values":["disable","prefer","require"],"visible":true,"sequenceNumber":5,"helper":"require: TLS with a verified certificate; prefer: TLS when possible, else clear text; disable: clear text.","userAttribute":false,"requireValidation":false},{"key":"ssl","label":"TLS (deprecated)","valueType":"BOOLEAN","required":false,"values":[],"visible":false,"sequenceNumber":6,"helper":"Use sslmode instead: ssl=true is sslmode=require, ssl=false is sslmode=disable (ssl applies only when sslmode is not set).","userAttribute":false,"requireValidation":false}]', 'system', '2026-11-24T00:00:00.000Z', 'system', '2026-11-24T00:00:00.000Z'),
  ('postgresql-hyperdrive', 'postgresql-hyperdrive', 'PostgreSQL (Hyperdrive)', 'A PostgreSQL database behind one of this service''s Cloudflare Hyperdrive bindings.', 'POSTGRESQL', 'HYPERDRIVE', '[{"key":"hyperdriveBinding","label":"Hyperdrive binding","valueType":"STRING","required":true,"values":[],"visible":true,"sequenceNumber":0,"helper":"Name of a Hyperdrive binding of this service; the database and its credentials are configured there.","userAttribute":false,"requireValidation":true}]', 'system', '2026-11-24T00:00:00.000Z', 'system', '2026-11-24T00:00:00.000Z'),
  ('http-json', 'http-json', 'HTTP JSON', 'An HTTP(S) address that answers GET with a JSON array of objects.', 'HTTP_JSON', 'HTTP_JSON', '[{"key":"url","label":"URL","valueType":"URL","required":true,"values":[],"visible":true,"sequenceNumber":0,"helper":"An http(s) address that answers GET with a JSON array of objects.","userAttribute":false,"requireValidation":true},{"key":"authorization","label":"Authorization header","valueType":"PASSWORD","required":false,"values":[],"visible":true,"sequenceNumber":1,"helper":"The whole value of the Authorization header, e.g. \"Bearer abc123\".","userAttribute":false,"requireValidation":true},{"key":"header.","label":"Header","valueType":"STRING","required":false,"values":[],"visible":true,"sequenceNumber":2,"helper":"One parameter per extra request header: key \"header.X-Api-Version\", value \"2\".","userAttribute":false,"requireValidation":false},{"key":"secretHeader.","label":"Secret header","valueType":"PASSWORD","required":false,"values":[],"visible":true,"sequenceNumber":3,"helper":"Like header., for values that are secrets: key \"secretHeader.X-Api-Key\".","userAttribute":false,"requireValidation":true},{"key":"tableName","label":"Table name","valueType":"STRING","required":false,"values":[],"visible":true,"sequenceNumber":4,"helper":null,"userAttribute":false,"requireValidation":false}]', 'system', '2026-11-24T00:00:00.000Z', 'system', '2026-11-24T00:00:00.000Z'),
  ('json-datasets', 'json-datasets', 'JSON datasets', 'The account''s own JSON datasets (/api/json-datasets), each one a table of the schema "datasets".', 'JSON_DATASETS', 'JSON_DATASETS', '[]', 'system', '2026-11-24T00:00:00.000Z', 'system', '2026-11-24T00:00:00.000Z');
