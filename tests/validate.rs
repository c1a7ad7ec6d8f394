//! Hand-written validator cases: each names the rule, severity, path and line it expects,
//! and clean files must produce no error.

use zcp::ops::validate::{
    FileKind, Report, Severity, detect_kind, import_services, setup_names, validate,
};

/// `(severity, rule, path, line)` that must appear in the report.
type Expect = (Severity, &'static str, &'static str, usize);

const E: Severity = Severity::Error;
const W: Severity = Severity::Warning;
const I: Severity = Severity::Info;

fn all(report: &Report) -> Vec<String> {
    report
        .errors
        .iter()
        .chain(&report.warnings)
        .chain(&report.info)
        .map(|f| {
            format!(
                "{:?} {} {} line {}: {}",
                f.severity, f.rule, f.path, f.line, f.message
            )
        })
        .collect()
}

fn check(name: &str, kind: FileKind, yaml: &str, expected: &[Expect]) {
    let report = validate(yaml, Some(kind), None);
    for (severity, rule, path, line) in expected {
        let found = report
            .errors
            .iter()
            .chain(&report.warnings)
            .chain(&report.info)
            .any(|f| {
                f.severity == *severity
                    && f.rule == *rule
                    && f.path == *path
                    && f.line == *line
                    && f.column >= 1
                    && !f.suggestion.is_empty()
            });
        assert!(
            found,
            "case {name}: expected {severity:?} {rule} at {path} line {line}; got:\n{}",
            all(&report).join("\n")
        );
    }
    if expected.iter().all(|(s, ..)| *s != Severity::Error) {
        assert!(
            report.valid,
            "case {name}: expected no errors; got:\n{}",
            all(&report).join("\n")
        );
    } else {
        assert!(!report.valid, "case {name}: expected invalid");
    }
}

fn z(name: &str, yaml: &str, expected: &[Expect]) {
    check(name, FileKind::ZeropsYml, yaml, expected);
}

fn imp(name: &str, yaml: &str, expected: &[Expect]) {
    check(name, FileKind::ImportYml, yaml, expected);
}

const GOOD_ZEROPS: &str = "zerops:
  - setup: api
    build:
      base: nodejs@22
      buildCommands:
        - npm ci
        - npm run build
      deployFiles:
        - dist
        - node_modules
        - package.json
      cache: node_modules
    run:
      base: nodejs@22
      ports:
        - port: 3000
          httpSupport: true
      envVariables:
        NODE_ENV: production
        DATABASE_URL: ${db_connectionString}
      start: npm start
";

#[test]
fn clean_files_pass() {
    z("good zerops", GOOD_ZEROPS, &[]);
    z(
        "php needs no start",
        "zerops:\n  - setup: app\n    build:\n      base: php@8.4\n      buildCommands: [composer install]\n      deployFiles: ./\n    run:\n      base: php-nginx@8.4\n      documentRoot: public\n",
        &[],
    );
    z(
        "composite bases",
        "zerops:\n  - setup: app\n    build:\n      base: alpine/nodejs@22\n      deployFiles: ./\n    run:\n      base: ubuntu/nodejs@22\n      start: node index.js\n",
        &[],
    );
    z(
        "static run",
        "zerops:\n  - setup: web\n    build:\n      base: nodejs@22\n      buildCommands: [npm ci, npm run build]\n      deployFiles: dist/~\n    run:\n      base: static\n",
        &[],
    );
    imp(
        "good import",
        "services:\n  - hostname: db\n    type: postgresql@16\n    mode: NON_HA\n    priority: 10\n  - hostname: api\n    type: nodejs@22\n    minContainers: 1\n    maxContainers: 3\n    envSecrets:\n      APP_KEY: abc\n",
        &[],
    );
    imp(
        "composite managed needs no mode",
        "services:\n  - hostname: db\n    type: postgresql:ha@17\n  - hostname: cache\n    type: valkey:single@7.2\n",
        &[],
    );
    imp(
        "object storage",
        "services:\n  - hostname: storage\n    type: object-storage\n    objectStorageSize: 2\n    objectStoragePolicy: private\n",
        &[],
    );
}

#[test]
fn syntax_and_shape() {
    z(
        "syntax error",
        "zerops:\n  - setup: api\n    build: [\n",
        &[(E, "G4", "", 4)],
    );
    z(
        "duplicate keys",
        "zerops:\n  - setup: a\n    setup: b\n",
        &[(E, "G4", "", 3)],
    );
    z("empty", "", &[(E, "G5", "", 1)]);
    z("scalar top", "just text\n", &[(E, "G5", "", 1)]);
    z(
        "no zerops",
        "setups:\n  - setup: api\n",
        &[(E, "Z1", "zerops", 1)],
    );
    z(
        "legacy format",
        "api:\n  build:\n    build:\n      - npm i\n",
        &[(E, "Z1", "zerops", 1)],
    );
    z(
        "import content",
        "services:\n  - hostname: a\n",
        &[(E, "Z1", "zerops", 1)],
    );
    z(
        "extra top key",
        "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: x\nservices: []\n",
        &[(E, "Z4", "services", 6)],
    );
    z(
        "zerops not a list",
        "zerops:\n  setup: api\n",
        &[(E, "Z2", "zerops", 2)],
    );
    z("zerops empty", "zerops: []\n", &[(E, "Z3", "zerops", 1)]);
    imp(
        "import syntax",
        "services:\n  - hostname: 'db\n",
        &[(E, "G4", "", 2)],
    );
    imp("import empty", "", &[(E, "G5", "", 1)]);
}

#[test]
fn setups() {
    z(
        "missing setup",
        "zerops:\n  - build:\n      base: nodejs@22\n      deployFiles: ./\n",
        &[(E, "Z5", "zerops[0]", 2)],
    );
    z(
        "empty setup",
        "zerops:\n  - setup: ''\n    run:\n      start: x\n",
        &[(E, "Z5", "zerops[0].setup", 2)],
    );
    z(
        "duplicate setup",
        "zerops:\n  - setup: api\n    run: {base: nodejs@22, start: x}\n  - setup: api\n    run: {base: nodejs@22, start: y}\n",
        &[(E, "Z6", "zerops[1].setup", 4)],
    );
    z(
        "unknown setup key",
        "zerops:\n  - setup: api\n    biuld:\n      base: nodejs@22\n    run: {base: nodejs@22, start: x}\n",
        &[(E, "Z8", "zerops[0].biuld", 3)],
    );
    z(
        "extends unknown",
        "zerops:\n  - setup: api\n    extends: base\n    run: {base: nodejs@22, start: x}\n",
        &[(E, "Z9", "zerops[0].extends", 3)],
    );
    z(
        "extends itself",
        "zerops:\n  - setup: api\n    extends: api\n    run: {base: nodejs@22, start: x}\n",
        &[(E, "Z9", "zerops[0].extends", 3)],
    );
    z(
        "extends inherits run",
        "zerops:\n  - setup: base\n    build: {base: nodejs@22, deployFiles: ./}\n    run: {base: nodejs@22, start: node a.js}\n  - setup: api\n    extends: base\n    build: {base: nodejs@22, deployFiles: dist}\n",
        &[],
    );
    z(
        "no run",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      deployFiles: ./\n",
        &[(W, "Z10", "zerops[0]", 2)],
    );
}

#[test]
fn build_section() {
    z(
        "unknown build key",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      deployFiles: ./\n      buildComands: [npm ci]\n    run: {start: x}\n",
        &[(E, "Z11", "zerops[0].build.buildComands", 6)],
    );
    z(
        "no deployFiles",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n    run: {start: x}\n",
        &[(E, "Z12", "zerops[0].build", 4)],
    );
    z(
        "deprecated deploy",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      deploy: ./\n    run: {start: x}\n",
        &[(W, "Z12", "zerops[0].build.deploy", 5)],
    );
    z(
        "run deployFiles",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      deployFiles: ./\n",
        &[(E, "Z24", "zerops[0].run.deployFiles", 6)],
    );
    z(
        "unknown build base",
        "zerops:\n  - setup: api\n    build:\n      base: nodjs@22\n      deployFiles: ./\n    run: {start: x}\n",
        &[(E, "Z13", "zerops[0].build.base", 4)],
    );
    z(
        "run base as build",
        "zerops:\n  - setup: api\n    build:\n      base: php-nginx@8.4\n      deployFiles: ./\n    run: {base: php-nginx@8.4}\n",
        &[(E, "Z13", "zerops[0].build.base", 4)],
    );
    z(
        "new version warns",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@26\n      deployFiles: ./\n    run: {base: nodejs@22, start: x}\n",
        &[(W, "Z13", "zerops[0].build.base", 4)],
    );
    z(
        "no base is info",
        "zerops:\n  - setup: api\n    build:\n      deployFiles: ./\n    run: {base: nodejs@22, start: x}\n",
        &[(I, "Z13", "zerops[0].build", 4)],
    );
    z(
        "bad os",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      os: debian\n      deployFiles: ./\n    run: {start: x}\n",
        &[(E, "Z14", "zerops[0].build.os", 5)],
    );
    z(
        "command string",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      buildCommands: npm ci\n      deployFiles: ./\n    run: {start: x}\n",
        &[(W, "Z15", "zerops[0].build.buildCommands", 5)],
    );
    z(
        "command map",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      buildCommands:\n        - {run: x}\n      deployFiles: ./\n    run: {start: x}\n",
        &[(E, "Z15", "zerops[0].build.buildCommands[0]", 6)],
    );
    z(
        "two tildes",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      deployFiles:\n        - dist/~/x/~\n    run: {start: x}\n",
        &[(W, "Z16", "zerops[0].build.deployFiles[0]", 6)],
    );
    z(
        "bad cache",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      deployFiles: ./\n      cache: {a: 1}\n    run: {start: x}\n",
        &[(E, "Z17", "zerops[0].build.cache", 6)],
    );
    z(
        "sudo missing",
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      prepareCommands:\n        - apk add git\n      deployFiles: ./\n    run: {start: x}\n",
        &[(W, "Z34", "zerops[0].build.prepareCommands", 6)],
    );
}

#[test]
fn env_variables() {
    z(
        "bad env key",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envVariables:\n        MY-KEY: 1\n",
        &[(E, "Z19", "zerops[0].run.envVariables.MY-KEY", 7)],
    );
    z(
        "nested env value",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envVariables:\n        A:\n          b: c\n",
        &[(E, "Z19", "zerops[0].run.envVariables.A", 8)],
    );
    z(
        "null env value",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envVariables:\n        A:\n",
        &[(W, "Z19", "zerops[0].run.envVariables.A", 7)],
    );
    z(
        "zerops prefix",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envVariables:\n        ZEROPS_X: a\n",
        &[(W, "Z19", "zerops[0].run.envVariables.ZEROPS_X", 7)],
    );
    z(
        "open reference",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envVariables:\n        A: ${db_password\n",
        &[(W, "Z36", "zerops[0].run.envVariables.A", 7)],
    );
}

#[test]
fn run_section() {
    z(
        "envSecrets in run",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envSecrets:\n        A: b\n",
        &[(E, "Z24", "zerops[0].run.envSecrets", 6)],
    );
    z(
        "run mount",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      mount: [files]\n",
        &[(E, "Z24", "zerops[0].run.mount", 6)],
    );
    z(
        "managed run base",
        "zerops:\n  - setup: db\n    run:\n      base: postgresql@16\n",
        &[(E, "Z25", "zerops[0].run.base", 4)],
    );
    z(
        "build base as run",
        "zerops:\n  - setup: app\n    build: {base: php@8.4, deployFiles: ./}\n    run:\n      base: php@8.4\n",
        &[(E, "Z25", "zerops[0].run.base", 5)],
    );
    z(
        "no start",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      base: nodejs@22\n",
        &[(W, "Z26", "zerops[0].run", 5)],
    );
    z(
        "startCommands no command",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      startCommands:\n        - name: web\n",
        &[(E, "Z27", "zerops[0].run.startCommands[0]", 6)],
    );
    z(
        "start and startCommands",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: a\n      startCommands:\n        - command: b\n",
        &[(W, "Z27", "zerops[0].run.startCommands", 7)],
    );
    z(
        "port range",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      ports:\n        - port: 70000\n",
        &[(E, "Z28", "zerops[0].run.ports[0].port", 7)],
    );
    z(
        "port protocol",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      ports:\n        - port: 3000\n          protocol: http\n",
        &[(E, "Z28", "zerops[0].run.ports[0].protocol", 7)],
    );
    z(
        "http over udp",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      ports:\n        - port: 3000\n          protocol: UDP\n          httpSupport: true\n",
        &[(E, "Z28", "zerops[0].run.ports[0].httpSupport", 9)],
    );
    z(
        "duplicate port",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      ports:\n        - port: 3000\n        - port: 3000\n",
        &[(E, "Z28", "zerops[0].run.ports[1].port", 8)],
    );
    z(
        "port 80 on node",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      ports:\n        - port: 80\n",
        &[(W, "Z28", "zerops[0].run.ports[0].port", 7)],
    );
    z(
        "envReplace",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      envReplace:\n        target: [./dist]\n",
        &[(E, "Z29", "zerops[0].run.envReplace", 7)],
    );
    z(
        "routing on node",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      routing:\n        redirects:\n          - from: /a\n",
        &[
            (W, "Z30", "zerops[0].run.routing", 7),
            (E, "Z30", "zerops[0].run.routing.redirects[0]", 8),
        ],
    );
    z(
        "cron",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      crontab:\n        - timing: '* * *'\n          command: a\n",
        &[
            (E, "Z31", "zerops[0].run.crontab[0].timing", 7),
            (W, "Z31", "zerops[0].run.crontab[0]", 7),
        ],
    );
    z(
        "documentRoot on node",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      documentRoot: public\n",
        &[(W, "Z32", "zerops[0].run.documentRoot", 6)],
    );
    z(
        "prepare reads /var/www",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      prepareCommands:\n        - cat /var/www/x\n",
        &[(W, "Z18", "zerops[0].run.prepareCommands", 7)],
    );
}

#[test]
fn checks_and_timings() {
    z(
        "readiness both",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    deploy:\n      readinessCheck:\n        httpGet: {port: 3000, path: /}\n        exec: {command: x}\n    run: {start: x}\n",
        &[(E, "Z21", "zerops[0].deploy.readinessCheck", 6)],
    );
    z(
        "readiness none",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    deploy:\n      readinessCheck:\n        failureTimeout: 30s\n    run: {start: x}\n",
        &[(E, "Z21", "zerops[0].deploy.readinessCheck", 6)],
    );
    z(
        "health path",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    run:\n      start: x\n      healthCheck:\n        httpGet:\n          port: 3000\n",
        &[(E, "Z22", "zerops[0].run.healthCheck.httpGet.path", 8)],
    );
    z(
        "bad timing",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    deploy:\n      readinessCheck:\n        exec: {command: x}\n        failureTimeout: soon\n    run: {start: x}\n",
        &[(
            E,
            "Z23",
            "zerops[0].deploy.readinessCheck.failureTimeout",
            7,
        )],
    );
    z(
        "int timing",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    deploy:\n      readinessCheck:\n        exec: {command: x}\n        retryPeriod: 10\n    run: {start: x}\n",
        &[(I, "Z23", "zerops[0].deploy.readinessCheck.retryPeriod", 7)],
    );
    z(
        "unknown deploy key",
        "zerops:\n  - setup: api\n    build: {base: nodejs@22, deployFiles: ./}\n    deploy:\n      rediness: {}\n    run: {start: x}\n",
        &[(E, "Z20", "zerops[0].deploy.rediness", 5)],
    );
}

#[test]
fn import_top_level() {
    imp(
        "project warns",
        "project:\n  name: x\nservices:\n  - hostname: api\n    type: nodejs@22\n",
        &[(W, "I2", "project", 1)],
    );
    imp(
        "zerops key",
        "zerops: []\nservices:\n  - hostname: api\n    type: nodejs@22\n",
        &[(E, "I1", "zerops", 1)],
    );
    imp(
        "no services",
        "project:\n  name: x\n",
        &[(E, "I3", "services", 1)],
    );
    imp(
        "services map",
        "services:\n  hostname: api\n",
        &[(E, "I3", "services", 2)],
    );
    imp(
        "service not map",
        "services:\n  - api\n",
        &[(E, "I4", "services[0]", 2)],
    );
    imp(
        "unknown key",
        "services:\n  - hostname: api\n    type: nodejs@22\n    port: 3000\n",
        &[(E, "I5", "services[0].port", 4)],
    );
    imp(
        "envVariables dropped",
        "services:\n  - hostname: api\n    type: nodejs@22\n    envVariables:\n      A: b\n",
        &[(W, "I5", "services[0].envVariables", 4)],
    );
    imp(
        "preprocessor",
        "services:\n  - hostname: api\n    type: nodejs@22\n    envSecrets:\n      K: <@generateRandomString(<32>)>\n",
        &[(W, "I29", "", 1)],
    );
    let big = format!(
        "services:\n  - hostname: api\n    type: nodejs@22\n    envSecrets:\n      K: \"{}\"\n",
        "x".repeat(110 * 1024)
    );
    imp("too big", &big, &[(E, "G7", "", 1)]);
}

#[test]
fn import_services_rules() {
    imp(
        "no hostname",
        "services:\n  - type: nodejs@22\n",
        &[(E, "I6", "services[0]", 2)],
    );
    imp(
        "bad hostname",
        "services:\n  - hostname: my-api\n    type: nodejs@22\n",
        &[(E, "I7", "services[0].hostname", 2)],
    );
    imp(
        "digit first",
        "services:\n  - hostname: 1api\n    type: nodejs@22\n",
        &[(E, "I7", "services[0].hostname", 2)],
    );
    imp(
        "long hostname",
        "services:\n  - hostname: abcdefghijklmnopqrstuvwxyz12\n    type: nodejs@22\n",
        &[(W, "I7", "services[0].hostname", 2)],
    );
    imp(
        "duplicate hostname",
        "services:\n  - hostname: api\n    type: nodejs@22\n  - hostname: api\n    type: go@1\n",
        &[(E, "I8", "services[1].hostname", 4)],
    );
    imp(
        "no type",
        "services:\n  - hostname: api\n",
        &[(E, "I9", "services[0]", 2)],
    );
    imp(
        "unknown type",
        "services:\n  - hostname: db\n    type: mongodb@7\n",
        &[(E, "I9", "services[0].type", 3)],
    );
    imp(
        "typo type",
        "services:\n  - hostname: db\n    type: postgres@16\n    mode: NON_HA\n",
        &[(E, "I9", "services[0].type", 3)],
    );
    imp(
        "unknown version",
        "services:\n  - hostname: api\n    type: nodejs@99\n",
        &[(W, "I9", "services[0].type", 3)],
    );
    imp(
        "suffix on runtime",
        "services:\n  - hostname: api\n    type: nodejs:ha@22\n",
        &[(E, "I9", "services[0].type", 3)],
    );
    imp(
        "bad mode",
        "services:\n  - hostname: db\n    type: postgresql@16\n    mode: WEIRD\n",
        &[(E, "I10", "services[0].mode", 4)],
    );
    imp(
        "missing mode",
        "services:\n  - hostname: cache\n    type: valkey@7.2\n",
        &[(E, "I11", "services[0]", 2)],
    );
    imp(
        "storage mode",
        "services:\n  - hostname: files\n    type: object-storage\n    mode: NON_HA\n    objectStorageSize: 1\n",
        &[(E, "I12", "services[0].mode", 4)],
    );
    imp(
        "contradicting mode",
        "services:\n  - hostname: db\n    type: postgresql:ha@16\n    mode: NON_HA\n",
        &[(E, "I13", "services[0].mode", 4)],
    );
    imp(
        "runtime mode",
        "services:\n  - hostname: api\n    type: nodejs@22\n    mode: NON_HA\n",
        &[(W, "I14", "services[0].mode", 4)],
    );
    imp(
        "meilisearch ha",
        "services:\n  - hostname: search\n    type: meilisearch@1.10\n    mode: HA\n",
        &[(E, "I15", "services[0]", 2)],
    );
    imp(
        "storage size",
        "services:\n  - hostname: files\n    type: object-storage\n    objectStorageSize: 500\n",
        &[(E, "I16", "services[0].objectStorageSize", 4)],
    );
    imp(
        "storage policy",
        "services:\n  - hostname: files\n    type: object-storage\n    objectStorageSize: 5\n    objectStoragePolicy: open\n",
        &[(E, "I16", "services[0].objectStoragePolicy", 5)],
    );
    imp(
        "custom policy",
        "services:\n  - hostname: files\n    type: object-storage\n    objectStorageSize: 5\n    objectStoragePolicy: custom\n",
        &[(W, "I17", "services[0]", 2)],
    );
    imp(
        "vertical min max",
        "services:\n  - hostname: api\n    type: nodejs@22\n    verticalAutoscaling:\n      minRam: 4\n      maxRam: 1\n",
        &[(E, "I18", "services[0].verticalAutoscaling.minRam", 5)],
    );
    imp(
        "vertical cpuMode",
        "services:\n  - hostname: api\n    type: nodejs@22\n    verticalAutoscaling:\n      cpuMode: FAST\n",
        &[(E, "I18", "services[0].verticalAutoscaling.cpuMode", 5)],
    );
    imp(
        "containers range",
        "services:\n  - hostname: api\n    type: nodejs@22\n    maxContainers: 20\n",
        &[(E, "I19", "services[0].maxContainers", 4)],
    );
    imp(
        "containers on managed",
        "services:\n  - hostname: db\n    type: postgresql@16\n    mode: HA\n    minContainers: 2\n",
        &[(E, "I19", "services[0].minContainers", 5)],
    );
    imp(
        "priority type",
        "services:\n  - hostname: db\n    type: postgresql@16\n    mode: HA\n    priority: high\n",
        &[(E, "I20", "services[0].priority", 5)],
    );
    imp(
        "bool type",
        "services:\n  - hostname: api\n    type: nodejs@22\n    enableSubdomainAccess: yes please\n",
        &[(E, "I20", "services[0].enableSubdomainAccess", 4)],
    );
    imp(
        "git suffix",
        "services:\n  - hostname: api\n    type: nodejs@22\n    buildFromGit: https://github.com/a/b.git\n",
        &[(E, "I22", "services[0].buildFromGit", 4)],
    );
    imp(
        "setup without git",
        "services:\n  - hostname: api\n    type: nodejs@22\n    zeropsSetup: api\n",
        &[(E, "I23", "services[0].zeropsSetup", 4)],
    );
    imp(
        "mount unknown",
        "services:\n  - hostname: api\n    type: nodejs@22\n    buildFromGit: https://github.com/a/b\n    mount: [files]\n",
        &[(W, "I24", "services[0].mount", 5)],
    );
    imp(
        "embedded zerops",
        "services:\n  - hostname: api\n    type: nodejs@22\n    buildFromGit: https://github.com/a/b\n    zeropsYaml:\n      zerops:\n        - setup: web\n          run: {base: nodejs@22, start: x}\n",
        &[(E, "I25", "services[0].zeropsYaml", 6)],
    );
    imp(
        "secret key",
        "services:\n  - hostname: api\n    type: nodejs@22\n    envSecrets:\n      BAD-KEY: x\n",
        &[(E, "I26", "services[0].envSecrets.BAD-KEY", 5)],
    );
    imp(
        "dotenv",
        "services:\n  - hostname: api\n    type: nodejs@22\n    dotEnvSecrets: |\n      A=1\n      nonsense\n",
        &[(W, "I27", "services[0].dotEnvSecrets", 4)],
    );
    imp(
        "isolation",
        "services:\n  - hostname: api\n    type: nodejs@22\n    envIsolation: project\n",
        &[(E, "I28", "services[0].envIsolation", 4)],
    );
    imp(
        "os without start",
        "services:\n  - hostname: api\n    type: nodejs@22\n    os: ubuntu\n",
        &[(W, "I30", "services[0].os", 4)],
    );
    imp(
        "profile",
        "services:\n  - hostname: db\n    type: postgresql@16\n    mode: NON_HA\n    profile: turbo\n",
        &[(E, "I31", "services[0].profile", 5)],
    );
}

#[test]
fn detection_and_helpers() {
    assert_eq!(detect_kind("services: []", None), FileKind::ImportYml);
    assert_eq!(detect_kind("zerops: []", None), FileKind::ZeropsYml);
    assert_eq!(
        detect_kind("zerops: []", Some("deploy/import.yml")),
        FileKind::ImportYml
    );
    assert_eq!(detect_kind("{{{", None), FileKind::ZeropsYml);
    assert_eq!(setup_names(GOOD_ZEROPS).unwrap(), vec!["api"]);
    assert!(setup_names("services: []").is_err());
    let services =
        import_services("services:\n  - hostname: db\n    type: postgresql@16\n    mode: HA\n")
            .unwrap();
    assert_eq!(
        (services[0].hostname.as_str(), services[0].mode.as_deref()),
        ("db", Some("HA"))
    );
    let report = validate(
        "project:\n  name: x\nservices:\n  - hostname: a\n    type: go@1\n",
        None,
        None,
    );
    assert!(report.valid && report.has_project);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["type"], "import.yml");
    assert_eq!(json["errors"], serde_json::json!([]));
    assert_eq!(json["warnings"][0]["rule"], "I2");
}

/// Mutated corpus files must never panic the validator.
#[test]
fn mutated_inputs_never_panic() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus");
    let mut inputs = Vec::new();
    for sub in ["zerops", "import"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            inputs.push(std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
    }
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut runs = 0;
    for text in &inputs {
        let chars: Vec<char> = text.chars().collect();
        for _ in 0..6 {
            let mut mutated = chars.clone();
            for _ in 0..4 {
                if mutated.is_empty() {
                    break;
                }
                let i = (next() as usize) % mutated.len();
                match next() % 4 {
                    0 => {
                        mutated.remove(i);
                    }
                    1 => mutated.insert(
                        i,
                        [':', '-', ' ', '\n', '[', '{', '"', '&', '*'][(next() % 9) as usize],
                    ),
                    2 => mutated.truncate(i),
                    _ => {
                        let j = (next() as usize) % mutated.len();
                        mutated.swap(i, j);
                    }
                }
            }
            let text: String = mutated.into_iter().collect();
            for kind in [FileKind::ZeropsYml, FileKind::ImportYml] {
                let _ = validate(&text, Some(kind), None);
                runs += 1;
            }
        }
    }
    assert!(runs > 600, "{runs}");
}
