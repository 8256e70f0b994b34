package org.openbox.browser;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openbox.controller.ControllerApplication;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The dashboard in a real headless Chromium (Debian's chromium and chromium-driver, driven by
 * Selenium): the whole controller with the sample firewall and IPS and their demo rules, a
 * topology with one segment, and the real OBI binary replaying the demo's sample trace
 * ({@code apps/demo/sample/make_trace.py}). The test logs in through the login form and checks
 * what an operator sees: the OBI in its segment with traffic counters and a chart, the merged
 * graph drawn with blocks of both applications and live counters above zero, rule hit counts
 * labelled with their match (as GET /api/apps/NAME/rules gives them), the alert filter
 * (application and severity; the application's rule, typed or clicked in the table) showing
 * only matching alerts, the applications' stop / start
 * buttons for the operator, none for a viewer.
 *
 * <p>Screenshots land in {@code tests/browser/target/screenshots/} (topology.png,
 * obi-graph.png, applications.png, alerts-ips.png, alerts-severe.png, alerts-rule.png, viewer-applications.png,
 * swagger-ui.png). Chromium or
 * chromedriver missing or unable to start fails the test with what to install; so does a
 * missing OBI binary ({@code $OPENBOX_OBI_BIN} or {@code -Dopenbox.obi.bin}, default
 * {@code build/obi/obi}); Java-only developers opt out explicitly with {@code -Dopenbox.obi.skip=true}
 * (reported as skipped), as for the controller's RealObiTest.
 */
@SpringBootTest(
        classes = ControllerApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "openbox.insecure=true",
            "openbox.keepalive-interval=1s",
            "openbox.keepalive-timeout=3s",
            "openbox.security.users.ui-operator.password={noop}operator-secret",
            "openbox.security.users.ui-operator.roles=OPERATOR",
            "openbox.security.users.ui-viewer.password={noop}viewer-secret",
            "openbox.security.users.ui-viewer.roles=VIEWER",
        })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardBrowserTest {

    private static final long DPID = 4201;
    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final Path ROOT = repoRoot();
    private static final Path OUT = ROOT.resolve("tests/browser/target");
    private static final Path SHOTS = OUT.resolve("screenshots");
    private static final ObjectMapper JSON = new ObjectMapper();

    @LocalServerPort
    int port;

    private Process obi;
    private Path obiLog;
    private ChromeDriverService service;
    private WebDriver browser;
    private final HttpClient http = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void deployment(DynamicPropertyRegistry r) throws IOException {
        Path work = Files.createDirectories(OUT.resolve("run"));
        Path topology = work.resolve("topology.json");
        Files.writeString(topology, "{\"segments\": [{\"name\": \"office\", \"obis\": [" + DPID + "]}]}");
        Path sample = ROOT.resolve("apps/demo/sample");
        r.add("openbox.topology", topology::toString);
        r.add("openbox.app.firewall.config", () -> sample.resolve("firewall.properties")
                .toString());
        r.add("openbox.app.ips.config", () -> sample.resolve("ips.properties").toString());
        r.add("openbox.state-dir", () -> work.resolve("state-" + System.nanoTime())
                .toString());
        if (!Boolean.getBoolean("openbox.obi.skip")) {
            r.add("openbox.obi-binary", () -> obiBinary().toString());
        }
    }

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        Path bin = obiBinary();
        Path work = OUT.resolve("run");
        Files.createDirectories(SHOTS);
        browser = startChromium(work.resolve("chromium-profile-" + System.nanoTime()));
        Path trace = work.resolve("office.pcap");
        Process gen = new ProcessBuilder(
                        "python3",
                        ROOT.resolve("apps/demo/sample/make_trace.py").toString(),
                        trace.toString())
                .redirectErrorStream(true)
                .start();
        String genOut = new String(gen.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gen.waitFor(60, TimeUnit.SECONDS) || gen.exitValue() != 0) {
            throw new AssertionError("make_trace.py failed: " + genOut);
        }
        obiLog = work.resolve("obi.log");
        obi = new ProcessBuilder(
                        bin.toString(),
                        "--dpid",
                        String.valueOf(DPID),
                        "--listen",
                        "127.0.0.1:" + freePort(),
                        "--controller",
                        "http://127.0.0.1:" + port,
                        "--workers",
                        "1",
                        "--insecure",
                        "--device-map",
                        "in=pcap:" + trace + ",out=pcap:" + work.resolve("out.pcap"))
                .redirectErrorStream(true)
                .redirectOutput(obiLog.toFile())
                .start();
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (service != null) {
            service.stop();
        }
        if (obi != null) {
            obi.destroy();
            if (!obi.waitFor(5, TimeUnit.SECONDS)) {
                obi.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** Chromium headless with the flags a closed network needs, or a failure saying what is missing. */
    private WebDriver startChromium(Path profile) {
        String chromium = System.getProperty("openbox.chromium", "/usr/bin/chromium");
        String driver = System.getProperty("openbox.chromedriver", "/usr/bin/chromedriver");
        String install = " (Debian: apt-get install chromium chromium-driver, which ./openbox deps does)";
        if (!Files.isExecutable(Path.of(chromium))) {
            throw new AssertionError("chromium not found at " + chromium + install);
        }
        if (!Files.isExecutable(Path.of(driver))) {
            throw new AssertionError("chromedriver not found at " + driver + install);
        }
        ChromeOptions options = new ChromeOptions()
                .setBinary(chromium)
                .addArguments(
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--disable-dev-shm-usage",
                        "--window-size=1400,1000",
                        "--user-data-dir=" + profile.toAbsolutePath());
        try {
            service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(driver))
                    .usingAnyFreePort()
                    .withLogFile(OUT.resolve("run/chromedriver.log").toFile())
                    .build();
            ChromeDriver d = new ChromeDriver(service, options);
            d.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            return d;
        } catch (WebDriverException e) {
            throw new AssertionError(
                    "chromium could not start" + install + ": "
                            + e.getMessage().lines().findFirst().orElse(""),
                    e);
        }
    }

    @Test
    void operatorSeesTopologyGraphCountersRuleHitsAndFilteredAlerts() throws Exception {
        try {
            awaitObiRunningWithTraffic();
            login("ui-operator", "operator-secret");

            // topology: the OBI in its segment, up, with traffic and a chart
            browser.get(base() + "/#topology");
            WebElement card = waitFor(d -> d.findElement(
                    By.cssSelector("section[data-segment='office'] .card.obi[data-dpid='" + DPID + "']")));
            waitUntil(
                    d -> card(d).findElement(By.cssSelector(".badge")).getText().equals("UP")
                            && number(card(d).findElement(By.cssSelector("td[data-stat='packets_in']"))
                                            .getText())
                                    > 0);
            waitUntil(d -> !card(d).findElements(By.cssSelector("svg.chart polyline[data-series='in']"))
                    .isEmpty());
            shot("topology");

            // the merged graph: blocks of both applications, live counters above zero
            browser.get(base() + "/#obi/" + DPID);
            waitFor(d -> d.findElement(By.cssSelector("#graph svg.graph g.block")));
            Set<String> apps = new HashSet<>();
            for (WebElement b : browser.findElements(By.cssSelector("#graph svg.graph g.block"))) {
                apps.addAll(List.of(b.getAttribute("data-apps").split(" ")));
            }
            assertThat(apps).contains("firewall", "ips");
            WebElement counted = waitFor(d -> d.findElements(By.cssSelector("#graph g.block[data-count]")).stream()
                    .filter(b -> number(b.getAttribute("data-count")) > 0)
                    .findFirst()
                    .orElse(null));
            assertThat(counted.findElement(By.cssSelector("text.counter")).getText())
                    .contains("pkts");

            // rule hits with their labels, as the API gives them
            JsonNode rules = api("/api/apps/firewall/rules?dpid=" + DPID);
            JsonNode hit = null;
            String block = null;
            for (JsonNode b : rules) {
                for (JsonNode r : b.get("rules")) {
                    if (hit == null && r.path("hits").asLong() > 0) {
                        hit = r;
                        block = b.get("block").asText();
                    }
                }
            }
            assertThat(hit).as("a firewall rule with hits: " + rules).isNotNull();
            String row = "#rules tr[data-app='firewall'][data-block='" + block + "'][data-rule='"
                    + hit.get("index").asInt() + "']";
            String ruleBlock = block;
            int ruleIndex = hit.get("index").asInt();
            // the page polls every 3 s: its count and the API's agree once the trace has passed
            waitUntil(d -> !d.findElements(By.cssSelector(row)).isEmpty()
                    && number(d.findElement(By.cssSelector(row + " td.hits")).getText())
                            == hitsOf(ruleBlock, ruleIndex));
            assertThat(hitsOf(ruleBlock, ruleIndex)).isGreaterThan(0);
            assertThat(browser.findElement(By.cssSelector(row + " td.label")).getText())
                    .isEqualTo(hit.get("label").asText())
                    .contains(" -> ");
            shot("obi-graph");

            // applications: both running, the operator has stop buttons
            browser.get(base() + "/#apps/ips");
            waitFor(d -> d.findElement(By.cssSelector("table.apps tr[data-app='ips'] button[data-action='stop']")));
            assertThat(browser.findElement(By.cssSelector("table.apps tr[data-app='firewall'] .badge"))
                            .getText())
                    .isEqualTo("RUNNING");
            waitFor(d -> d.findElement(By.cssSelector(".app-detail[data-app='ips'] table.alerts")));
            shot("applications");

            // alerts filtered by application and severity: only those, as many as the API counts
            JsonNode ipsAlerts = api("/api/alerts?limit=500&app=ips");
            assertThat(ipsAlerts.size()).as("ips alerts").isGreaterThan(0);
            int severity = 5;
            for (JsonNode a : ipsAlerts) {
                severity = Math.min(severity, a.get("severity").asInt());
            }
            browser.get(base() + "/#alerts");
            waitFor(d -> d.findElement(By.cssSelector("#alert-filters #f-app option[value='ips']")));
            waitUntil(d -> d.findElements(By.cssSelector("#alerts tbody tr")).stream()
                    .anyMatch(tr -> "firewall".equals(tr.getAttribute("data-app"))));
            new Select(browser.findElement(By.id("f-app"))).selectByValue("ips");
            new Select(browser.findElement(By.id("f-sev"))).selectByValue(String.valueOf(severity));
            browser.findElement(By.id("f-apply")).click();
            int minSeverity = severity;
            long expectedRows =
                    api("/api/alerts?limit=500&app=ips&minSeverity=" + severity).size();
            waitUntil(d -> {
                List<WebElement> trs = d.findElements(By.cssSelector("#alerts tbody tr"));
                return trs.size() == expectedRows
                        && trs.stream()
                                .allMatch(tr -> "ips".equals(tr.getAttribute("data-app"))
                                        && Integer.parseInt(tr.getAttribute("data-severity")) >= minSeverity);
            });
            // newest first by arrival at the controller (the API's order reversed); the time
            // column is the packet's own time, which need not rise with arrival
            List<Instant> times = new ArrayList<>();
            browser.findElements(By.cssSelector("#alerts tbody tr td:first-child"))
                    .forEach(td -> times.add(Instant.parse(td.getText())));
            List<Instant> arrival = new ArrayList<>();
            api("/api/alerts?limit=500&app=ips&minSeverity=" + severity)
                    .forEach(a -> arrival.add(Instant.parse(a.get("time").asText())));
            java.util.Collections.reverse(arrival);
            assertThat(times).isEqualTo(arrival);
            shot("alerts-ips");

            // any application, a severity above the IPS's: the firewall's alerts only, none of the IPS's
            int above = severity + 1;
            JsonNode severe = api("/api/alerts?limit=500&minSeverity=" + above);
            assertThat(severe.size()).as("alerts of severity >= " + above).isGreaterThan(0);
            new Select(browser.findElement(By.id("f-app"))).selectByValue("");
            new Select(browser.findElement(By.id("f-sev"))).selectByValue(String.valueOf(above));
            browser.findElement(By.id("f-apply")).click();
            waitUntil(d -> {
                List<WebElement> trs = d.findElements(By.cssSelector("#alerts tbody tr"));
                return trs.size() == severe.size()
                        && trs.stream()
                                .allMatch(tr -> Integer.parseInt(tr.getAttribute("data-severity")) >= above
                                        && !"ips".equals(tr.getAttribute("data-app")));
            });
            shot("alerts-severe");

            // one rule (the IPS's sid of its first alert), typed into the rule filter: its alerts only,
            // of any application and severity, as many as the API counts
            new Select(browser.findElement(By.id("f-sev"))).selectByValue("");
            long sid = ipsAlerts.get(0).path("rule").path("id").asLong(-1);
            assertThat(sid).as("the IPS alert's rule").isPositive();
            int ofRule = api("/api/alerts?limit=500&rule=" + sid).size();
            WebElement ruleBox = browser.findElement(By.id("f-rule"));
            ruleBox.clear();
            ruleBox.sendKeys(Long.toString(sid));
            browser.findElement(By.id("f-apply")).click();
            waitUntil(d -> {
                List<WebElement> trs = d.findElements(By.cssSelector("#alerts tbody tr"));
                return trs.size() == ofRule
                        && trs.stream()
                                .allMatch(tr -> String.valueOf(sid).equals(tr.getAttribute("data-rule"))
                                        && tr.findElement(By.cssSelector("a.rule"))
                                                .getText()
                                                .startsWith("sid " + sid + ":"));
            });
            shot("alerts-rule");
            // the firewall's rule of a firewall alert, by clicking it in the table (the rule filter takes it)
            ruleBox.clear();
            browser.findElement(By.id("f-apply")).click();
            JsonNode fwAlerts = api("/api/alerts?limit=500&app=firewall");
            assertThat(fwAlerts.size()).as("firewall alerts").isGreaterThan(0);
            long fwRule =
                    fwAlerts.get(fwAlerts.size() - 1).path("rule").path("id").asLong(-1);
            assertThat(fwRule).as("the firewall alert's rule").isNotNegative();
            int ofFwRule = api("/api/alerts?limit=500&rule=" + fwRule).size();
            String fwRow = "#alerts tbody tr[data-app='firewall'][data-rule='" + fwRule + "'] a.rule";
            waitFor(d -> d.findElement(By.cssSelector(fwRow)));
            click(fwRow);
            waitUntil(d -> String.valueOf(fwRule)
                            .equals(d.findElement(By.id("f-rule")).getAttribute("value"))
                    && d.findElements(By.cssSelector("#alerts tbody tr")).size() == ofFwRule
                    && d.findElements(By.cssSelector("#alerts tbody tr")).stream()
                            .allMatch(tr -> String.valueOf(fwRule).equals(tr.getAttribute("data-rule"))));
            browser.findElement(By.id("f-rule")).clear();

            // the operator stops the IPS and starts it again from the page (a POST with the session's CSRF token)
            browser.get(base() + "/#apps");
            click("table.apps tr[data-app='ips'] button[data-action='stop']");
            waitUntil(d -> d.findElement(By.cssSelector("table.apps tr[data-app='ips'] .badge"))
                            .getText()
                            .equals("STOPPED")
                    && d.findElement(By.id("action-result")).getText().startsWith("stop ips"));
            assertThat(api("/api/apps").findValuesAsText("state")).contains("STOPPED");
            click("table.apps tr[data-app='ips'] button[data-action='start']");
            waitUntil(d -> d.findElement(By.cssSelector("table.apps tr[data-app='ips'] .badge"))
                    .getText()
                    .equals("RUNNING"));

            // a viewer: the same applications, no buttons
            browser.manage().deleteAllCookies();
            login("ui-viewer", "viewer-secret");
            browser.get(base() + "/#apps");
            waitFor(d -> d.findElement(By.cssSelector("table.apps tr[data-app='ips']")));
            assertThat(browser.findElements(By.cssSelector("table.apps button")))
                    .isEmpty();
            assertThat(browser.findElement(By.id("who")).getText())
                    .contains("ui-viewer")
                    .contains("VIEWER")
                    .doesNotContain("OPERATOR");
            shot("viewer-applications");

            // the API reference: Swagger UI, served by the controller behind the same login
            browser.get(base() + "/swagger-ui.html");
            waitUntil(d -> d.findElement(By.cssSelector(".swagger-ui .info .title"))
                    .getText()
                    .contains("OpenBox controller API"));
            waitFor(d -> d.findElement(By.cssSelector(".opblock-summary-path[data-path='/api/apps/{name}/rules']")));
            shot("swagger-ui");
        } catch (AssertionError | RuntimeException e) {
            shot("failure");
            throw new AssertionError(e.getMessage() + "\n--- OBI output ---\n" + obiOutput(), e);
        }
    }

    /** Hits of one firewall rule on the OBI, from the API. */
    private double hitsOf(String block, int index) {
        try {
            for (JsonNode b : api("/api/apps/firewall/rules?dpid=" + DPID)) {
                if (b.get("block").asText().equals(block)) {
                    return b.get("rules").get(index).path("hits").asDouble(-1);
                }
            }
            return -1;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private WebElement card(WebDriver d) {
        return d.findElement(By.cssSelector(".card.obi[data-dpid='" + DPID + "']"));
    }

    /** The OBI is UP, runs the merged graph, and its source has read packets. */
    private void awaitObiRunningWithTraffic() throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!obi.isAlive()) {
                throw new AssertionError("the OBI exited with " + obi.exitValue());
            }
            try {
                JsonNode stats = api("/api/obis/" + DPID + "/stats");
                last = stats.toString();
                JsonNode detail = api("/api/obis/" + DPID);
                if (String.valueOf(detail.at("/obi/graphStatus").asText()).startsWith("running")
                        && stats.path("packets_in").asLong() > 0) {
                    return;
                }
            } catch (IOException | IllegalStateException e) {
                last = e.getMessage();
            }
            Thread.sleep(300);
        }
        throw new AssertionError("OBI " + DPID + " did not run its graph on the trace in " + WAIT + ": " + last);
    }

    private void login(String user, String password) {
        browser.get(base() + "/");
        WebElement name = waitFor(d -> d.findElement(By.id("username")));
        name.sendKeys(user);
        browser.findElement(By.id("password")).sendKeys(password);
        browser.findElement(By.cssSelector("button[type='submit']")).click();
        waitFor(d -> d.findElement(By.cssSelector("header nav a[data-view='obi']")));
        waitUntil(d -> d.findElement(By.id("who")).getText().startsWith(user));
    }

    /** Clicks the element once it is there and can be clicked (the page redraws a view when its data change). */
    private void click(String css) {
        new WebDriverWait(browser, WAIT)
                .ignoring(org.openqa.selenium.NoSuchElementException.class)
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .ignoring(org.openqa.selenium.ElementNotInteractableException.class)
                .until(d -> {
                    d.findElement(By.cssSelector(css)).click();
                    return true;
                });
    }

    private <T> T waitFor(Function<WebDriver, T> what) {
        return new WebDriverWait(browser, WAIT)
                .ignoring(org.openqa.selenium.NoSuchElementException.class)
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(what::apply);
    }

    private void waitUntil(Function<WebDriver, Boolean> condition) {
        waitFor(d -> condition.apply(d) ? Boolean.TRUE : null);
    }

    private JsonNode api(String path) throws IOException, InterruptedException {
        String basic =
                Base64.getEncoder().encodeToString("ui-operator:operator-secret".getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base() + path))
                        .header("Authorization", "Basic " + basic)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private void shot(String name) {
        if (browser instanceof TakesScreenshot t) {
            try {
                Files.copy(
                        t.getScreenshotAs(OutputType.FILE).toPath(),
                        SHOTS.resolve(name + ".png"),
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException | WebDriverException e) {
                System.err.println("screenshot " + name + " not saved: " + e.getMessage());
            }
        }
    }

    private String obiOutput() {
        try {
            return obiLog == null ? "" : Files.readString(obiLog);
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    /** "1.23 k" -> 1230, "17" -> 17, "–" -> -1. */
    static double number(String text) {
        if (text == null) {
            return -1;
        }
        String t = text.strip().split(" pkts")[0].strip();
        double scale = 1;
        if (t.endsWith(" k")) {
            scale = 1e3;
        } else if (t.endsWith(" M")) {
            scale = 1e6;
        } else if (t.endsWith(" G")) {
            scale = 1e9;
        }
        t = t.replaceAll("[ kMG]+$", "");
        try {
            return Double.parseDouble(t) * scale;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static Path obiBinary() {
        String given = System.getProperty("openbox.obi.bin", System.getenv("OPENBOX_OBI_BIN"));
        Path bin = given != null && !given.isBlank() ? Path.of(given) : ROOT.resolve("build/obi/obi");
        if (!Files.isExecutable(bin)) {
            throw new AssertionError("OBI binary not found at " + bin.toAbsolutePath()
                    + ": build it with './openbox build'" + " or point OPENBOX_OBI_BIN / -Dopenbox.obi.bin at one");
        }
        return bin.toAbsolutePath();
    }

    private static Path repoRoot() {
        for (Path q = Path.of("").toAbsolutePath(); q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("obi")) && Files.isDirectory(q.resolve("obc"))) {
                return q;
            }
        }
        return Path.of("").toAbsolutePath();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
