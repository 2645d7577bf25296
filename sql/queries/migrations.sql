-- name: alembic_current
-- The revision the database is at.
SELECT version_num FROM public.d2_alembic_version LIMIT 1;

-- name: prisma_applied_migrations
-- Migrations the old Prisma implementation finished.
SELECT migration_name FROM public._prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL;

-- name: schemas_writable_by_others
-- Schemas D-2's definer and trigger functions resolve names through (those of postgis
-- and unaccent, or where CREATE EXTENSION would put them, and d2) in which a role other
-- than the schema's owner, the migrating role and superusers may CREATE: such a role
-- could plant an overload that then runs with D-2's privileges.
WITH alvo (nspname) AS (
    SELECT coalesce(
        (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
         WHERE e.extname = x.extname),
        current_schema()
    )
    FROM (VALUES ('postgis'), ('unaccent')) x (extname)
    UNION
    SELECT 'd2'
)
SELECT DISTINCT n.nspname AS schema,
       CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END AS papel
FROM pg_namespace n
JOIN alvo ON alvo.nspname = n.nspname
CROSS JOIN LATERAL aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a
LEFT JOIN pg_roles r ON r.oid = a.grantee
WHERE a.privilege_type = 'CREATE'
  AND a.grantee <> n.nspowner
  AND a.grantee <> (SELECT oid FROM pg_roles WHERE rolname = current_user)
  AND NOT coalesce(r.rolsuper, false)
ORDER BY 1, 2;
