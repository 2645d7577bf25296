-- name: alembic_current
-- The revision the database is at.
SELECT version_num FROM public.d2_alembic_version LIMIT 1;

-- name: prisma_applied_migrations
-- Migrations the old Prisma implementation finished.
SELECT migration_name FROM public._prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL;
