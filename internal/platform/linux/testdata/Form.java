// A small Swing form for the backend's toolkit tests: `java Form.java` (Java 11+ source launch),
// with the ATK wrapper switched on through JAVA_TOOL_OPTIONS (Debian libatk-wrapper-java). "Open
// dialog" shows a modeless dialog window.
import javax.swing.*;

public class Form {
    public static void main(String[] args) {
        SwingUtilities.invokeLater(() -> {
            JFrame frame = new JFrame("Swing Form");
            JPanel panel = new JPanel();
            panel.setLayout(new BoxLayout(panel, BoxLayout.Y_AXIS));
            JLabel status = new JLabel("Status: idle");
            JTextField name = new JTextField("Ada", 12);
            name.getAccessibleContext().setAccessibleName("Name");
            JButton submit = new JButton("Submit");
            submit.addActionListener(e -> status.setText("Status: submitted " + name.getText()));
            JDialog dialog = new JDialog(frame, "Swing Dialog", false);
            JButton close = new JButton("Close dialog");
            close.addActionListener(e -> dialog.setVisible(false));
            dialog.add(close);
            dialog.setSize(220, 100);
            JButton opener = new JButton("Open dialog");
            opener.addActionListener(e -> dialog.setVisible(true));
            panel.add(status);
            panel.add(name);
            panel.add(new JCheckBox("Subscribe"));
            panel.add(submit);
            panel.add(opener);
            frame.add(panel);
            frame.setSize(320, 220);
            frame.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            frame.setVisible(true);
        });
    }
}
