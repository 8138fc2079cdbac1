CREATE TABLE `quota_guard` (
	`type` text NOT NULL,
	CONSTRAINT "quota_exceeded" CHECK(0)
);
