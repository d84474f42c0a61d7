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
 * Alone it is a single-node cluster on a random transport port. As one node of a local cluster
 * (`npm run opensearch -- --nodes N`) it is also given OPENSEARCH_NODE_NAME, a fixed
 * OPENSEARCH_TRANSPORT_PORT, OPENSEARCH_SEED_HOSTS (the transport addresses of all the nodes,
 * comma-separated) and OPENSEARCH_INITIAL_MANAGERS (the names of all the nodes, for the first
 * election). It binds to 127.0.0.1 only and has no security plugin: a node for development, CI
 * and small boards, not a production cluster.
 */
public final class LocalNode extends Node {
    private LocalNode(Environment environment) {
        // Node's constructor that takes classpath plugins is protected; this subclass exists to call it.
        super(environment, List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, PainlessPlugin.class), true);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        String port = env.getOrDefault("OPENSEARCH_PORT", "9200");
        String name = env.getOrDefault("OPENSEARCH_NODE_NAME", "tagwise-local");
        String seedHosts = env.getOrDefault("OPENSEARCH_SEED_HOSTS", "");
        Path home = Path.of(System.getenv().getOrDefault("OPENSEARCH_HOME", "data/opensearch")).toAbsolutePath();
        Files.createDirectories(home.resolve("data"));
        Files.createDirectories(home.resolve("logs"));
        Files.createDirectories(home.resolve("config"));

        Settings.Builder builder = Settings.builder()
            .put("cluster.name", "tagwise")
            .put("node.name", name)
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("network.host", "127.0.0.1")
            .put("http.port", port)
            .put("http.type", "netty4")
            .put("transport.type", "netty4");
        if (seedHosts.isEmpty()) {
            builder.put("discovery.type", "single-node").put("transport.port", "0");
        } else {
            builder
                .put("transport.port", env.getOrDefault("OPENSEARCH_TRANSPORT_PORT", "9300"))
                .putList("discovery.seed_hosts", List.of(seedHosts.split(",")))
                .putList("cluster.initial_cluster_manager_nodes", List.of(env.getOrDefault("OPENSEARCH_INITIAL_MANAGERS", name).split(",")));
        }
        Settings settings = builder.build();
        Environment environment = InternalSettingsPreparer.prepareEnvironment(
            settings, Map.of(), home.resolve("config"), () -> name);

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
        }, name + "-shutdown"));
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
