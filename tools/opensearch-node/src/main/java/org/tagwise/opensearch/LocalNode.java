package org.tagwise.opensearch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * A single-node OpenSearch started from the published server and plugin jars, the way
 * OpenSearch's own integration tests start theirs: the plugins are classes on the classpath
 * rather than installed bundles, so there is no distribution to unpack.
 *
 * Configured by environment variables: OPENSEARCH_PORT (HTTP port, default 9200) and
 * OPENSEARCH_HOME (the node's home; data and logs live below it, default ./data/opensearch).
 * It binds to 127.0.0.1 only and has no security plugin: a node for development, CI and small
 * boards, not a production cluster.
 */
public final class LocalNode extends Node {
    private LocalNode(Environment environment) {
        // Node's constructor that takes classpath plugins is protected; this subclass exists to call it.
        super(environment, List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, PainlessPlugin.class), true);
    }

    public static void main(String[] args) throws Exception {
        String port = System.getenv().getOrDefault("OPENSEARCH_PORT", "9200");
        Path home = Path.of(System.getenv().getOrDefault("OPENSEARCH_HOME", "data/opensearch")).toAbsolutePath();
        Files.createDirectories(home.resolve("data"));
        Files.createDirectories(home.resolve("logs"));
        Files.createDirectories(home.resolve("config"));

        Settings settings = Settings.builder()
            .put("cluster.name", "tagwise")
            .put("node.name", "tagwise-local")
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", port)
            .put("transport.port", "0")
            .put("http.type", "netty4")
            .put("transport.type", "netty4")
            .build();
        Environment environment = InternalSettingsPreparer.prepareEnvironment(
            settings, Map.of(), home.resolve("config"), () -> "tagwise-local");

        LocalNode node = new LocalNode(environment);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "tagwise-local-shutdown"));
        try {
            node.start();
        } catch (Exception e) {
            // the node's thread pools would keep the JVM alive after a failed start (port in use, say)
            e.printStackTrace();
            System.exit(1);
        }
        stopped.await();
    }
}
