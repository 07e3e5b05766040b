#!/bin/sh
# npm run deploy -- --stage <stage> [--region <region>]: the whole deploy of an AWS stage, in order:
#   1. build the web UI (web/dist)
#   2. serverless deploy (functions, queues, proxy, alarms, bucket, CloudFront)
#   3. the migrate task: pending migrations, each in its own transaction (stops here on failure)
#   4. upload web/dist to the stack's bucket and invalidate index.html in CloudFront
# Extra arguments go to `serverless deploy` (e.g. --force). DRY_RUN=1 prints the commands instead.
set -eu

STAGE=""
REGION="${AWS_REGION:-eu-central-1}"
args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --stage) STAGE="$2"; shift 2 ;;
    --region) REGION="$2"; shift 2 ;;
    *) args="$args $1"; shift ;;
  esac
done
if [ -z "$STAGE" ] || [ "$STAGE" = "local" ]; then
  echo "usage: npm run deploy -- --stage <aws stage> [--region <region>] (local runs with npm start)" >&2
  exit 2
fi

run() {
  if [ "${DRY_RUN:-}" = "1" ]; then echo "$*"; else "$@"; fi
}
output() { # a stack output by key
  if [ "${DRY_RUN:-}" = "1" ]; then echo "<$1>"; return; fi
  aws cloudformation describe-stacks --region "$REGION" --stack-name "anomaly-monitor-$STAGE" \
    --query "Stacks[0].Outputs[?OutputKey=='$1'].OutputValue" --output text
}

run npx vite build web --logLevel warn
# shellcheck disable=SC2086
run npx serverless deploy --stage "$STAGE" --region "$REGION" $args
# Migrations are part of the deploy: the new code is live only minutes before they are applied, so
# a release must not need them before they run (docs/deploy.md).
run npx serverless invoke -f migrate --stage "$STAGE" --region "$REGION" --data "${MIGRATE_DATA:-{\}}"
BUCKET=$(output WebBucketName)
DISTRIBUTION=$(output WebDistributionId)
# Hashed assets are immutable; index.html is revalidated on every load so a release shows at once.
run aws s3 sync web/dist "s3://$BUCKET" --region "$REGION" --delete --exclude index.html \
  --cache-control "public, max-age=31536000, immutable"
run aws s3 cp web/dist/index.html "s3://$BUCKET/index.html" --region "$REGION" --cache-control "no-cache"
run aws cloudfront create-invalidation --distribution-id "$DISTRIBUTION" --paths /index.html
echo "web UI: $(output WebUrl)"
