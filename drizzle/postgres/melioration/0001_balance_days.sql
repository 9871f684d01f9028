CREATE TABLE "melioration_balance_days" (
	"tenant_id" text NOT NULL,
	"field_id" text NOT NULL,
	"day" text NOT NULL,
	"depletion_end_mm" double precision NOT NULL,
	CONSTRAINT "melioration_balance_days_tenant_id_field_id_day_pk" PRIMARY KEY("tenant_id","field_id","day")
);
