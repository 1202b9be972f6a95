package tablecert.kit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The skeleton a vendor starts from: it declares no op, so the harness sends it none and reports
 * every vector unsupported. Implement an op by overriding its method of {@link Vendor} and naming
 * the op in {@link #ops()} (see ExampleCraps for craps.place_odds and craps.settle).
 */
public final class Skeleton implements Vendor {
    public static void main(String[] args) throws Exception {
        Shell.serve(new Skeleton());
    }

    @Override public ObjectNode implementation() {
        return Shell.NODES.objectNode().put("name", "my table game").put("version", "0.1").put("build", "dev");
    }

    @Override public List<String> ops() { return List.of(); }
}
