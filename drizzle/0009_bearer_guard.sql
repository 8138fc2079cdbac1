CREATE TABLE `bearer_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "bearer_token_refused" CHECK(0)
);
